import type { AssetDb } from './asset-db';
import { createReadyAsset, settleAfterReady, type SettleResult } from './keyframe-api';
import type { AccessToken, KeyframeServer } from './keyframe-server';
import { median, ratio, round } from './stats';

// Time-to-ready: POST an asset, then poll its row every 20 ms. Inputs are interleaved
// (30 s, 300 s, 30 s, …) so drift in the machine's load affects both alike.

export type ReadySample = {
  input: string;
  durationSeconds: number;
  run: number;
  assetId: string;
  /** readyAt − createdAt, written by the server. */
  serverMs: number;
  /** POST sent → first poll that saw `ready`. */
  clientMs: number;
  postMs: number;
  settle: SettleResult;
  /** The server's own per-step timings from its "asset ready" log line (only with --ingest-timings). */
  ingestTimings?: Record<string, number>;
};

export type ReadyInput = { label: string; durationSeconds: number; url: string };

export type TimeToReadyResult = {
  warmup: ReadySample | null;
  samples: ReadySample[];
  medians: Record<string, { serverMs: number | null; clientMs: number | null; runs: number }>;
  /** median(longest input) / median(shortest input), server-side and client-observed. */
  ratioLongToShort: { serverSide: number | null; clientObserved: number | null } | null;
};

const sample = async (
  server: KeyframeServer,
  token: AccessToken,
  db: AssetDb,
  input: ReadyInput,
  run: number,
): Promise<ReadySample> => {
  const ready = await createReadyAsset(server.baseUrl, token, db, input.url);
  const settle = await settleAfterReady(server, ready.assetId);
  const record = server.findLogRecords({ msg: 'asset ready', assetId: ready.assetId })[0];
  const ingestTimings = record
    ? Object.fromEntries(Object.entries(record).filter((entry): entry is [string, number] => entry[0].endsWith('Ms') && typeof entry[1] === 'number'))
    : undefined;
  return {
    input: input.label,
    durationSeconds: input.durationSeconds,
    run,
    assetId: ready.assetId,
    serverMs: round(ready.serverMs, 1),
    clientMs: round(ready.clientMs, 1),
    postMs: round(ready.postMs, 1),
    settle: { ...settle, waitedMs: round(settle.waitedMs, 0) },
    ...(ingestTimings ? { ingestTimings } : {}),
  };
};

export const measureTimeToReady = async ({
  server,
  token,
  db,
  inputs,
  runs,
  log,
}: {
  server: KeyframeServer;
  token: AccessToken;
  db: AssetDb;
  inputs: ReadyInput[];
  runs: number;
  log: (line: string) => void;
}): Promise<TimeToReadyResult> => {
  const [shortest] = [...inputs].sort((a, b) => a.durationSeconds - b.durationSeconds);
  let warmup: ReadySample | null = null;
  if (shortest) {
    // The first request to each route loads its module; that one-off cost is not time-to-ready.
    warmup = await sample(server, token, db, shortest, 0);
    log(`time-to-ready warm-up (${shortest.label}, not counted): server ${warmup.serverMs} ms, client ${warmup.clientMs} ms`);
  }
  const samples: ReadySample[] = [];
  for (let run = 1; run <= runs; run++) {
    for (const input of inputs) {
      const result = await sample(server, token, db, input, run);
      samples.push(result);
      log(
        `time-to-ready ${input.label} run ${run}: server ${result.serverMs} ms, client ${result.clientMs} ms` +
          ` (post-ready work settled after ${result.settle.waitedMs} ms)` +
          (result.ingestTimings ? ` ingest steps ${JSON.stringify(result.ingestTimings)}` : ''),
      );
    }
  }
  const medians: TimeToReadyResult['medians'] = {};
  for (const input of inputs) {
    const mine = samples.filter((entry) => entry.input === input.label);
    medians[input.label] = {
      serverMs: median(mine.map((entry) => entry.serverMs)),
      clientMs: median(mine.map((entry) => entry.clientMs)),
      runs: mine.length,
    };
  }
  const longest = [...inputs].sort((a, b) => b.durationSeconds - a.durationSeconds)[0];
  const ratioLongToShort =
    shortest && longest && longest !== shortest
      ? {
          serverSide: ratio(medians[longest.label]?.serverMs ?? null, medians[shortest.label]?.serverMs ?? null),
          clientObserved: ratio(medians[longest.label]?.clientMs ?? null, medians[shortest.label]?.clientMs ?? null),
        }
      : null;
  return { warmup, samples, medians, ratioLongToShort };
};
