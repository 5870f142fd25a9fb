'use client';

import type { ReactNode } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { EncodingLoadJson } from '../hooks/dashboard-types';
import { ENCODING_LOAD_POLL_MS } from '../hooks/query-keys';
import { useEncodingLoad } from '../hooks/use-encoding-load';
import { ErrorList } from '../ui/field';
import { formatEncodeCost, QUEUE_KINDS, summarizeLoad } from './load-summary';

function Figure({ label, value, note, testId }: { label: string; value: ReactNode; note: string; testId: string }) {
  return (
    <div className="rounded-lg border border-zinc-200 bg-white px-4 py-3">
      <dt className="text-xs font-medium text-zinc-600 uppercase">{label}</dt>
      <dd className="mt-1 text-2xl font-semibold tabular-nums" data-testid={testId}>
        {value}
      </dd>
      <dd className="text-xs text-zinc-500">{note}</dd>
    </div>
  );
}

function Overview({ load }: { load: EncodingLoadJson }) {
  return (
    <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3">
      <Figure
        label="Encoders busy"
        value={`${load.running} of ${load.encoderLimit}`}
        note="ffmpeg segment encodes running / JIT_ENCODE_CONCURRENCY"
        testId="encoders-busy"
      />
      <Figure label="Queued" value={load.queued} note="encodes waiting for an encoder" testId="queued-total" />
      <Figure
        label="Deadline misses"
        value={<span className={load.deadlineMisses > 0 ? 'text-red-700' : undefined}>{load.deadlineMisses}</span>}
        note="encodes that finished after their viewer's buffer ran out, since the server started"
        testId="deadline-misses"
      />
    </dl>
  );
}

function QueueByKind({ load }: { load: EncodingLoadJson }) {
  return (
    <section aria-labelledby="queue-heading" className="space-y-2">
      <h2 id="queue-heading" className="text-lg font-semibold">
        Queue by kind
      </h2>
      <p className="text-sm text-zinc-600">Encodes waiting for an encoder, by why they were asked for.</p>
      <ul className="divide-y divide-zinc-100 rounded-lg border border-zinc-200 bg-white text-sm">
        {QUEUE_KINDS.map(({ kind, label, meaning }) => (
          <li key={kind} className="flex items-baseline justify-between gap-3 px-3 py-2" data-queue-kind={kind}>
            <span className="min-w-0">
              <span className="font-medium">{label}</span>
              <span className="block text-xs text-zinc-500">{meaning}</span>
            </span>
            <span className="text-base font-semibold tabular-nums" data-testid="queue-count">
              {load.queuedByKind[kind]}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function RungCosts({ load }: { load: EncodingLoadJson }) {
  return (
    <section aria-labelledby="cost-heading" className="space-y-2">
      <h2 id="cost-heading" className="text-lg font-semibold">
        Encode cost per rung
      </h2>
      <p className="text-sm text-zinc-600">
        CPU seconds of encoding (decoding the source included) per second of video, measured on this machine
        (smoothed). One core gives one CPU second per second: at 1 or more a rung cannot keep up with even one viewer on one
        encoder.
      </p>
      {load.rungCosts.length === 0 ? (
        <p className="text-sm text-zinc-600">No encodes measured since the server started.</p>
      ) : (
        <div className="relative overflow-x-auto rounded-lg border border-zinc-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-zinc-200 bg-zinc-50 text-xs text-zinc-600 uppercase">
              <tr>
                <th scope="col" className="px-3 py-2">Rung</th>
                <th scope="col" className="px-3 py-2">Encode cost</th>
                <th scope="col" className="px-3 py-2">Encodes measured</th>
              </tr>
            </thead>
            <tbody>
              {load.rungCosts.map((cost) => (
                <tr key={cost.rung} data-rung={cost.rung} className="border-b border-zinc-100 last:border-0">
                  <th scope="row" className="px-3 py-2 font-medium">{cost.rung}</th>
                  <td className={`px-3 py-2 tabular-nums ${cost.secondsPerMediaSecond >= 1 ? 'text-red-700' : ''}`}>
                    {formatEncodeCost(cost.secondsPerMediaSecond)}
                  </td>
                  <td className="px-3 py-2 tabular-nums">{cost.samples}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function EncodingLoadPage() {
  const load = useEncodingLoad();
  return (
    <div className="space-y-6">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold">Encoding load</h1>
        <p className="text-sm text-zinc-600">
          Segments are encoded the first time a player asks for them. This is what the encoders are doing right now, updated
          every {ENCODING_LOAD_POLL_MS / 1000} seconds. Scripts can read the same numbers from <code className="font-mono text-xs">GET /api/encoding-load</code>{' '}
          with an access token.
        </p>
      </div>
      {load.isError && <ErrorList messages={errorMessages(load.error)} />}
      {load.isPending && <p className="text-sm text-zinc-600">Loading…</p>}
      {load.data && (
        <>
          <p className="text-sm" data-testid="encoding-load-summary">
            <span className="font-medium">{summarizeLoad(load.data)}</span>
            <span className="text-zinc-500"> · updated {new Date(load.data.at).toLocaleTimeString()}</span>
          </p>
          <Overview load={load.data} />
          <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
            <QueueByKind load={load.data} />
            <RungCosts load={load.data} />
          </div>
        </>
      )}
    </div>
  );
}
