'use client';

import { useState } from 'react';
import { STATIC_RESOLUTIONS } from '@/lib/schemas/static-rendition';
import { errorMessages } from '../hooks/api-fetch';
import type { AssetJson } from '../hooks/dashboard-types';
import { useAddStaticRendition, useDeleteStaticRendition } from '../hooks/use-asset-mutations';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { formatBytes } from '../ui/format';
import { StatusBadge } from '../ui/status-badge';
import { useToast } from '../ui/toast';

type StaticFile = NonNullable<NonNullable<AssetJson['static_renditions']>['files']>[number];

const downloadUrl = (origin: string, playbackId: string, name: string) =>
  `${origin}/${playbackId}/${name}?download=${encodeURIComponent(name)}`;

const fileStatus = (file: StaticFile): string => ('status' in file ? file.status : 'ready');

// MP4/M4A downloads: each file with its status and size, a download link once it is ready (through
// a public playback ID), and add/delete for the static_renditions API. Files of the legacy
// mp4_support setting are listed but managed through that setting.
export function StaticRenditionsPanel({ asset, origin }: { asset: AssetJson; origin: string }) {
  const [resolution, setResolution] = useState<string>('highest');
  const [deleting, setDeleting] = useState<StaticFile>();
  const add = useAddStaticRendition(asset.id);
  const remove = useDeleteStaticRendition(asset.id);
  const toast = useToast();
  const files = asset.static_renditions?.files ?? [];
  const publicId = asset.playback_ids?.find((playbackId) => playbackId.policy === 'public')?.id;
  const basic = asset.video_quality === 'basic';

  return (
    <section aria-labelledby="static-renditions-heading" className="space-y-3">
      <h2 id="static-renditions-heading" className="text-lg font-semibold">
        MP4 downloads
      </h2>
      {asset.static_renditions?.status === 'preparing' && files.length === 0 && <p className="text-sm text-zinc-600">MP4 files are being prepared.</p>}
      {files.length === 0 && asset.static_renditions?.status !== 'preparing' && (
        <p className="text-sm text-zinc-600">No MP4 files. Add one to let people download this asset.</p>
      )}
      <ul className="space-y-2" data-testid="static-renditions">
        {files.map((file) => (
          <li key={file.name} className="rounded-md border border-zinc-200 bg-white p-3 text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-mono">{file.name}</span>
              <StatusBadge status={fileStatus(file)} />
              {file.width !== undefined && file.height !== undefined && (
                <span className="text-xs text-zinc-600">
                  {file.width}×{file.height}
                </span>
              )}
              {file.filesize !== undefined && <span className="text-xs text-zinc-600">{formatBytes(Number(file.filesize))}</span>}
              {'id' in file && (
                <Button variant="ghost" className="ml-auto px-2 py-1 text-xs text-red-700" onClick={() => setDeleting(file)}>
                  Delete
                </Button>
              )}
            </div>
            {fileStatus(file) === 'ready' &&
              (publicId ? (
                <a className="mt-1 inline-block text-xs text-indigo-700 underline" href={downloadUrl(origin, publicId, file.name)} download={file.name}>
                  Download {file.name}
                </a>
              ) : (
                <p className="mt-1 text-xs text-zinc-500">Signed only: download with ?token= (a JWT with aud v).</p>
              ))}
            {fileStatus(file) === 'skipped' && <p className="mt-1 text-xs text-zinc-500">Skipped: the source is smaller than this resolution.</p>}
          </li>
        ))}
      </ul>
      {basic ? (
        <p className="text-sm text-zinc-600">MP4 downloads need video quality “plus” or “premium”; this asset is “basic”.</p>
      ) : (
        <div className="flex items-end gap-2">
          <label className="text-sm font-medium">
            Resolution
            <select
              className="mt-1 block rounded-md border border-zinc-300 px-2 py-2 text-sm focus-visible:outline-2 focus-visible:outline-indigo-600"
              value={resolution}
              onChange={(event) => setResolution(event.target.value)}
            >
              {STATIC_RESOLUTIONS.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
          <Button
            variant="secondary"
            disabled={add.isPending}
            onClick={() =>
              add.mutate(resolution, {
                onSuccess: () => toast('success', `Preparing the ${resolution} MP4.`),
                onError: (error) => toast('error', errorMessages(error).join(' ')),
              })
            }
          >
            Add MP4
          </Button>
        </div>
      )}
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete this MP4?"
        message={`${deleting?.name ?? ''} stops being served. You can add it again later.`}
        confirmLabel="Delete MP4"
        busy={remove.isPending}
        onCancel={() => setDeleting(undefined)}
        onConfirm={() =>
          deleting &&
          'id' in deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => {
              toast('success', `${deleting.name} deleted.`);
              setDeleting(undefined);
            },
            onError: (error) => toast('error', errorMessages(error).join(' ')),
          })
        }
      />
    </section>
  );
}
