'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEncodingLoad } from '../hooks/use-encoding-load';
import { FOCUS_RING } from '../ui/button';
import { ENCODING_LOAD_PATH, loadLevel, summarizeLoad, type LoadLevel } from './load-summary';

const DOT: Record<LoadLevel, string> = { idle: 'bg-zinc-300', busy: 'bg-emerald-500', queued: 'bg-amber-500' };

// The encoder's load at a glance, in the shell of every dashboard page; it links to the details.
export function EncodingLoadStrip() {
  const load = useEncodingLoad();
  const pathname = usePathname();
  const current = pathname === ENCODING_LOAD_PATH;
  const data = load.data;
  return (
    <Link
      href={ENCODING_LOAD_PATH}
      aria-current={current ? 'page' : undefined}
      title="Just-in-time encoders busy/limit and encodes waiting for one; details and per-rung cost on the Encoding load page"
      data-testid="encoding-load-strip"
      data-running={data?.running}
      data-queued={data?.queued}
      className={`flex min-w-0 flex-wrap items-center gap-x-2 gap-y-0.5 rounded-md border px-2.5 py-1.5 text-xs ${FOCUS_RING} ${current ? 'border-indigo-200 bg-indigo-50 text-indigo-800' : 'border-zinc-200 text-zinc-700 hover:bg-zinc-100'}`}
    >
      <span aria-hidden="true" className={`h-2 w-2 shrink-0 rounded-full ${data ? DOT[loadLevel(data)] : 'bg-zinc-200'}`} />
      <span className="font-medium">Encoding</span>
      <span className="tabular-nums">
        {data ? summarizeLoad(data) : load.isError ? 'unavailable' : 'loading…'}
        {data && data.deadlineMisses > 0 && <span className="text-red-700"> · {data.deadlineMisses} missed</span>}
      </span>
    </Link>
  );
}
