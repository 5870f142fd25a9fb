'use client';

import { errorMessages } from '../hooks/api-fetch';
import type { AssetJson } from '../hooks/dashboard-types';
import { useSetMasterAccess } from '../hooks/use-asset-mutations';
import { Button } from '../ui/button';
import { CopyButton } from '../ui/copy-button';
import { StatusBadge } from '../ui/status-badge';
import { useToast } from '../ui/toast';

// The master URL carries its own expiry (`expires`, Unix seconds), which is all the API says about it.
const expiryOf = (url: string | undefined): Date | null => {
  if (!url) return null;
  const expires = Number(new URL(url).searchParams.get('expires'));
  return Number.isFinite(expires) && expires > 0 ? new Date(expires * 1000) : null;
};

// Master access: a temporary download of the best-quality MP4 of the asset, for editors.
export function MasterAccessPanel({ asset }: { asset: AssetJson }) {
  const setMasterAccess = useSetMasterAccess(asset.id);
  const toast = useToast();
  // Shown as asked while the request is on its way, so the switch answers the click at once.
  const asked = setMasterAccess.isPending ? setMasterAccess.variables : undefined;
  const enabled = (asked ?? asset.master_access) === 'temporary';
  const expiry = expiryOf(asset.master?.url);
  const change = (value: 'temporary' | 'none') =>
    setMasterAccess.mutate(value, {
      onSuccess: () => toast('success', value === 'temporary' ? 'Preparing the master.' : 'Master access removed.'),
      onError: (error) => toast('error', errorMessages(error).join(' ')),
    });

  return (
    <section aria-labelledby="master-access-heading" className="space-y-3">
      <h2 id="master-access-heading" className="text-lg font-semibold">
        Master access
      </h2>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <label className="inline-flex items-center gap-2 font-medium">
          <input
            type="checkbox"
            role="switch"
            className="h-4 w-4 accent-indigo-600"
            checked={enabled}
            disabled={setMasterAccess.isPending || asset.status !== 'ready'}
            onChange={(event) => change(event.target.checked ? 'temporary' : 'none')}
          />
          Temporary master download
        </label>
        {asset.master?.status && <StatusBadge status={asset.master.status} />}
      </div>
      {asset.status !== 'ready' && <p className="text-sm text-zinc-600">Available once the asset is ready.</p>}
      {asset.master?.url && (
        <div className="space-y-1 rounded-md border border-zinc-200 bg-white p-3 text-sm">
          <div className="flex items-center gap-2">
            <a className="min-w-0 flex-1 truncate text-indigo-700 underline" href={asset.master.url} data-testid="master-url">
              Download the master
            </a>
            <CopyButton value={asset.master.url} label="Copy master URL" />
          </div>
          {expiry && <p className="text-xs text-zinc-600">Works without credentials until {expiry.toLocaleString()}; then master access turns off.</p>}
        </div>
      )}
      {enabled && (
        <Button variant="ghost" className="px-2 py-1 text-xs" disabled={setMasterAccess.isPending} onClick={() => change('none')}>
          Remove master access now
        </Button>
      )}
    </section>
  );
}
