'use client';

import Link from 'next/link';
import { useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { AssetStatusFilter } from '../hooks/dashboard-types';
import { ASSETS_PAGE_SIZE, useAssets } from '../hooks/use-assets';
import { useDebouncedValue } from '../hooks/use-debounced-value';
import { Button, FOCUS_RING } from '../ui/button';
import { ErrorList, SelectField, TextField } from '../ui/field';
import { Pagination } from '../ui/pagination';
import { AssetsTable } from './assets-table';
import { CreateAssetDialog } from './create-asset-dialog';

export function AssetsPage() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<AssetStatusFilter>('');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const deferredSearch = useDebouncedValue(search.trim(), 300);
  const assets = useAssets({ search: deferredSearch, status, page });
  const filtered = deferredSearch !== '' || status !== '';

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-semibold">Assets</h1>
        <Button onClick={() => setCreating(true)}>Create from URL</Button>
      </div>
      <div className="grid gap-3 sm:grid-cols-[1fr_12rem]">
        <TextField
          label="Search by ID or title"
          type="search"
          value={search}
          onChange={(event) => {
            setSearch(event.target.value);
            setPage(1);
          }}
        />
        <SelectField
          label="Status"
          value={status}
          onChange={(event) => {
            setStatus(event.target.value as AssetStatusFilter);
            setPage(1);
          }}
        >
          <option value="">All</option>
          <option value="preparing">Preparing</option>
          <option value="ready">Ready</option>
          <option value="errored">Errored</option>
        </SelectField>
      </div>
      {assets.isError && <ErrorList messages={errorMessages(assets.error)} />}
      {assets.isPending && <p className="text-sm text-zinc-500">Loading assets…</p>}
      {assets.data && assets.data.data.length === 0 && (
        <div className="rounded-lg border border-dashed border-zinc-300 bg-white p-8 text-center text-sm text-zinc-600">
          {filtered ? (
            <p>No assets match this search or filter.</p>
          ) : (
            <p>
              No assets yet. Choose <strong>Create from URL</strong> above, drop files on the{' '}
              <Link className={`text-indigo-700 underline ${FOCUS_RING}`} href="/uploads">
                Uploads
              </Link>{' '}
              page,
              or call <code className="font-mono">POST /video/v1/assets</code> with an access token.
            </p>
          )}
        </div>
      )}
      {assets.data && assets.data.data.length > 0 && (
        <>
          <AssetsTable assets={assets.data.data} />
          <Pagination page={page} pageSize={ASSETS_PAGE_SIZE} total={assets.data.total} onPage={setPage} />
        </>
      )}
      <CreateAssetDialog open={creating} onClose={() => setCreating(false)} />
    </div>
  );
}
