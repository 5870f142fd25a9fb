import type { AssetDb } from './asset-db';
import type { InputKind, MoovPlacement } from './inputs';
import { createAsset, settleAfterReady, type SettleResult } from './keyframe-api';
import type { AccessToken, Deployment } from './bench-server';
import { median, ratio, round } from '../stats';
import type { WebhookReceiver } from '../webhook-receiver';

// Time-to-ready: POST an asset, then wait for it to become ready, one asset at a time. Inputs are
// interleaved (clean 30 s, camera 30 s …, clean 300 s, camera 300 s …, then again) so drift in the
// machine's load affects all of them alike.
//  - server-side: readyAt − createdAt, both written by the server (read from its database);
//  - client-observed: the create request sent → the `video.asset.ready` webhook arriving at a
//    receiver the benchmark runs (what an integrator's backend sees);
//  - and, for comparison with earlier runs, the first 20 ms poll of the database that saw `ready`.
// An input with several audio streams runs beside the same file with one, and what the other
// streams add to `ready` is reported as the difference of their medians.

export type ReadySample = {
  input: string;
  kind: InputKind;
  moov: MoovPlacement;
  durationSeconds: number;
  run: number;
  assetId: string;
  /** readyAt − createdAt, written by the server. */
  serverMs: number;
  /** Create request sent → `video.asset.ready` webhook received (null: no webhook within the timeout). */
  clientMs: number | null;
  /** Create request sent → first 20 ms database poll that saw `ready`. */
  pollMs: number;
  postMs: number;
  /** Delivery attempts the ready webhook carried (1 = first try). */
  webhookAttempts: number | null;
  settle: SettleResult;
  /** The server's own per-step timings from its "asset ready" log line (only with --ingest-timings). */
  ingestTimings?: Record<string, number>;
};

export type ReadyInput = { label: string; kind: InputKind; moov: MoovPlacement; durationSeconds: number; audioTracks?: number; url: string };

export type ReadyMedians = { serverMs: number | null; clientMs: number | null; pollMs: number | null; runs: number; webhooksMissing: number };

export type ReadyRatio = {
  /** e.g. "clean", "camera, moov last" */
  group: string;
  long: string;
  short: string;
  serverSide: number | null;
  clientObserved: number | null;
};

/** What an input's extra audio streams add to time-to-ready: its medians minus those of the same file with one. */
export type AudioTracksCost = {
  input: string;
  audioTracks: number;
  oneTrackInput: string;
  /** median(several) − median(one), ms; null when either is missing. */
  addedServerMs: number | null;
  addedClientMs: number | null;
};

export type TimeToReadyResult = {
  warmup: ReadySample | null;
  samples: ReadySample[];
  medians: Record<string, ReadyMedians>;
  /** median(longest) / median(shortest) for each kind and moov placement measured at two durations. */
  ratios: ReadyRatio[];
  /** Inputs with several audio streams against their one-stream twin. */
  audioTracks: AudioTracksCost[];
  webhookTimeoutMs: number;
};

const WEBHOOK_TIMEOUT_MS = 30_000;

const sample = async (
  server: Deployment,
  token: AccessToken,
  db: AssetDb,
  webhooks: WebhookReceiver,
  input: ReadyInput,
  run: number,
): Promise<ReadySample> => {
  const created = await createAsset(server.baseUrl, token, input.url);
  const { row, seenAt } = await db.waitForReady(created.assetId, { pollMs: 20 });
  if (row.readyAt === null) throw new Error(`asset ${created.assetId} is ready but has no readyAt`);
  const webhook = await webhooks.arrival('video.asset.ready', created.assetId, WEBHOOK_TIMEOUT_MS);
  const settle = await settleAfterReady(server, created.assetId);
  const record = server.findLogRecords({ msg: 'asset ready', assetId: created.assetId })[0];
  const ingestTimings = record
    ? Object.fromEntries(Object.entries(record).filter((entry): entry is [string, number] => entry[0].endsWith('Ms') && typeof entry[1] === 'number'))
    : undefined;
  return {
    input: input.label,
    kind: input.kind,
    moov: input.moov,
    durationSeconds: input.durationSeconds,
    run,
    assetId: created.assetId,
    serverMs: round(row.readyAt - row.createdAt, 1),
    clientMs: webhook ? round(webhook.arrivedAt - created.postStartedAt, 1) : null,
    pollMs: round(seenAt - created.postStartedAt, 1),
    postMs: round(created.postMs, 1),
    webhookAttempts: webhook?.attempts ?? null,
    settle: { ...settle, waitedMs: round(settle.waitedMs, 0) },
    ...(ingestTimings ? { ingestTimings } : {}),
  };
};

const groupOf = (input: { kind: InputKind; moov: MoovPlacement; audioTracks?: number }) =>
  (input.kind === 'clean' ? 'clean' : `camera, moov ${input.moov}`) + ((input.audioTracks ?? 1) > 1 ? `, ${input.audioTracks} audio tracks` : '');

const difference = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || b === null || b === undefined ? null : round(a - b, 1);

const audioTracksCosts = (inputs: ReadyInput[], medians: TimeToReadyResult['medians']): AudioTracksCost[] =>
  inputs.flatMap((input) => {
    const audioTracks = input.audioTracks ?? 1;
    const twin = inputs.find(
      (other) => (other.audioTracks ?? 1) === 1 && other.kind === input.kind && other.moov === input.moov && other.durationSeconds === input.durationSeconds,
    );
    if (audioTracks <= 1 || !twin) return [];
    return [
      {
        input: input.label,
        audioTracks,
        oneTrackInput: twin.label,
        addedServerMs: difference(medians[input.label]?.serverMs, medians[twin.label]?.serverMs),
        addedClientMs: difference(medians[input.label]?.clientMs, medians[twin.label]?.clientMs),
      },
    ];
  });

export const measureTimeToReady = async ({
  server,
  token,
  db,
  webhooks,
  inputs,
  runs,
  log,
}: {
  server: Deployment;
  token: AccessToken;
  db: AssetDb;
  webhooks: WebhookReceiver;
  inputs: ReadyInput[];
  runs: number;
  log: (line: string) => void;
}): Promise<TimeToReadyResult> => {
  const [shortest] = [...inputs].sort(
    (a, b) => a.durationSeconds - b.durationSeconds || (a.kind === 'clean' ? -1 : 1) - (b.kind === 'clean' ? -1 : 1) || (a.audioTracks ?? 1) - (b.audioTracks ?? 1),
  );
  let warmup: ReadySample | null = null;
  if (shortest) {
    // The first request to each route loads its module; that one-off cost is not time-to-ready.
    warmup = await sample(server, token, db, webhooks, shortest, 0);
    log(`time-to-ready warm-up (${shortest.label}, not counted): server ${warmup.serverMs} ms, client ${warmup.clientMs} ms`);
  }
  const samples: ReadySample[] = [];
  for (let run = 1; run <= runs; run++) {
    for (const input of inputs) {
      const result = await sample(server, token, db, webhooks, input, run);
      samples.push(result);
      log(
        `time-to-ready ${input.label} run ${run}: server ${result.serverMs} ms, client (webhook) ${result.clientMs ?? 'none'} ms, ` +
          `db poll ${result.pollMs} ms (post-ready work settled after ${result.settle.waitedMs} ms)` +
          (result.ingestTimings ? ` ingest steps ${JSON.stringify(result.ingestTimings)}` : ''),
      );
    }
  }
  const medians: TimeToReadyResult['medians'] = {};
  for (const input of inputs) {
    const mine = samples.filter((entry) => entry.input === input.label);
    const webhookTimes = mine.map((entry) => entry.clientMs).filter((value): value is number => value !== null);
    medians[input.label] = {
      serverMs: median(mine.map((entry) => entry.serverMs)),
      // A missing webhook counts as "not observed" (null), not as a fast sample.
      clientMs: webhookTimes.length === mine.length ? median(webhookTimes) : null,
      pollMs: median(mine.map((entry) => entry.pollMs)),
      runs: mine.length,
      webhooksMissing: mine.length - webhookTimes.length,
    };
  }
  const ratios: ReadyRatio[] = [];
  for (const group of [...new Set(inputs.map(groupOf))]) {
    const members = inputs.filter((input) => groupOf(input) === group).sort((a, b) => a.durationSeconds - b.durationSeconds);
    const short = members[0];
    const long = members.at(-1);
    if (!short || !long || short === long) continue;
    ratios.push({
      group,
      long: long.label,
      short: short.label,
      serverSide: ratio(medians[long.label]?.serverMs ?? null, medians[short.label]?.serverMs ?? null),
      clientObserved: ratio(medians[long.label]?.clientMs ?? null, medians[short.label]?.clientMs ?? null),
    });
  }
  return { warmup, samples, medians, ratios, audioTracks: audioTracksCosts(inputs, medians), webhookTimeoutMs: WEBHOOK_TIMEOUT_MS };
};
