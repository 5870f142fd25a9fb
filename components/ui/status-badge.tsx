const STYLES: Record<string, string> = {
  ready: 'bg-emerald-100 text-emerald-800',
  preparing: 'bg-amber-100 text-amber-800',
  errored: 'bg-red-100 text-red-800',
  waiting: 'bg-sky-100 text-sky-800',
  asset_created: 'bg-emerald-100 text-emerald-800',
  cancelled: 'bg-zinc-200 text-zinc-700',
  timed_out: 'bg-zinc-200 text-zinc-700',
  delivered: 'bg-emerald-100 text-emerald-800',
  pending: 'bg-amber-100 text-amber-800',
  sending: 'bg-sky-100 text-sky-800',
  failed: 'bg-red-100 text-red-800',
  skipped: 'bg-zinc-200 text-zinc-700',
  idle: 'bg-sky-100 text-sky-800',
  active: 'bg-emerald-100 text-emerald-800',
  disabled: 'bg-zinc-200 text-zinc-700',
  starting: 'bg-amber-100 text-amber-800',
  broadcasting: 'bg-emerald-100 text-emerald-800',
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span
      data-status={status}
      className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ${STYLES[status] ?? 'bg-zinc-100 text-zinc-700'}`}
    >
      {status.replace('_', ' ')}
    </span>
  );
}
