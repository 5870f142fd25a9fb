import http from 'node:http';
import path from 'node:path';
import { openAssetDb, type AssetDb } from './asset-db';
import { keepAliveAgent } from '../http';
import type { BenchInput } from './inputs';
import type { PhaseOutcome } from './bench-results';
import { startScaledServices } from './scaled-services';
import { startDeployment, type RunningDeployment, type Topology } from './scaled-deployment';
import { measureSegments, type SegmentsResult } from './segments';
import { startStaticServer, type StaticServer } from '../static-server';
import { errorMessage, ratio } from '../stats';
import { measureTimeToReady, type ReadyInput, type TimeToReadyResult } from './time-to-ready';
import { WebhookReceiver } from '../webhook-receiver';

// `--scaled`: the time-to-ready and cold-segment measurements again, back to back after the
// embedded default's, on Keyframe configured as a scaled-out deployment would be: PostgreSQL,
// Redis and S3 (OpenStack Swift). Each topology gets a fresh database, key prefix and server(s),
// and meets the same inputs in the same order as the embedded server did.

export type ScaledConfiguration = {
  topology: Topology;
  label: string;
  /** The scaled services' settings (secrets left out). */
  settings: Record<string, string>;
  timeToReady: PhaseOutcome<TimeToReadyResult>;
  segments: PhaseOutcome<SegmentsResult>;
  serverLogTail: string[];
};

export type ScaledComparisonRow = {
  measurement: string;
  embeddedMs: number | null;
  /** Per scaled topology: its median and median ÷ the embedded default's. */
  scaled: Array<{ label: string; ms: number | null; ratio: number | null }>;
};

export type ScaledResult = {
  services: { postgres: string; redis: string; s3: string };
  configurations: ScaledConfiguration[];
  comparison: ScaledComparisonRow[];
  notMeasured: string[];
};

export const TOPOLOGY_LABELS: Record<Topology, string> = {
  all: 'PostgreSQL + Redis + S3, one process (KEYFRAME_ROLE=all)',
  'http+worker': 'PostgreSQL + Redis + S3, http + worker processes',
};

const PUBLIC_SETTINGS = ['DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'S3_BUCKET', 'S3_ENDPOINT', 'S3_REGION', 'S3_FORCE_PATH_STYLE'];

type Measure = { readyInputs: BenchInput[]; segmentInput: BenchInput | null; runs: number; samples: number };

const notReached = { status: 'skipped', reason: 'not reached' } as const;

const measureTopology = async ({
  topology,
  env,
  measure,
  files,
  webhooks,
  log,
}: {
  topology: Topology;
  env: Record<string, string>;
  measure: Measure;
  files: StaticServer;
  webhooks: WebhookReceiver;
  log: (line: string) => void;
}): Promise<ScaledConfiguration> => {
  const label = TOPOLOGY_LABELS[topology];
  const result: ScaledConfiguration = {
    topology,
    label,
    settings: Object.fromEntries(PUBLIC_SETTINGS.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]]))),
    timeToReady: measure.readyInputs.length > 0 ? notReached : { status: 'skipped', reason: 'time-to-ready not run' },
    segments: measure.segmentInput ? notReached : { status: 'skipped', reason: 'segments not run' },
    serverLogTail: [],
  };
  const urlOf = (input: BenchInput) => files.url(path.basename(input.path));
  let deployment: RunningDeployment | undefined;
  let db: AssetDb | undefined;
  const agent: http.Agent = keepAliveAgent(4);
  try {
    log(`scaled: starting ${label}…`);
    deployment = await startDeployment({ topology, env });
    const token = await deployment.createToken();
    await deployment.createWebhookEndpoint(webhooks.url);
    db = await openAssetDb(deployment);
    const server = deployment;
    const readiness = db;
    if (measure.readyInputs.length > 0) {
      const inputs: ReadyInput[] = measure.readyInputs.map((input) => ({
        label: input.label,
        kind: input.kind,
        moov: input.moov,
        durationSeconds: input.durationSeconds,
        audioTracks: input.audioTracks,
        url: urlOf(input),
      }));
      const prefixed = (line: string) => log(`[${topology}] ${line}`);
      result.timeToReady = await outcome(() => measureTimeToReady({ server, token, db: readiness, webhooks, inputs, runs: measure.runs, log: prefixed }));
    }
    const segmentInput = measure.segmentInput;
    if (segmentInput) {
      const prefixed = (line: string) => log(`[${topology}] ${line}`);
      result.segments = await outcome(() =>
        measureSegments({ server, token, db: readiness, inputUrl: urlOf(segmentInput), samples: measure.samples, agent, log: prefixed }),
      );
    }
  } catch (error) {
    const failure = { status: 'error' as const, error: errorMessage(error) };
    if (result.timeToReady.status === 'skipped' && result.timeToReady.reason === 'not reached') result.timeToReady = failure;
    if (result.segments.status === 'skipped' && result.segments.reason === 'not reached') result.segments = failure;
    log(`scaled: ${label} failed: ${failure.error.split('\n')[0]}`);
  } finally {
    agent.destroy();
    await db?.close();
    if (deployment) {
      result.serverLogTail = deployment.logs().split('\n').filter(Boolean).slice(-40);
      await deployment.dispose();
    }
  }
  return result;
};

const outcome = async <T>(run: () => Promise<T>): Promise<PhaseOutcome<T>> => {
  try {
    return { status: 'ok', value: await run() };
  } catch (error) {
    return { status: 'error', error: errorMessage(error) };
  }
};

/** Medians of the embedded default next to each scaled topology's, with scaled ÷ embedded. */
export const compareWithEmbedded = (
  embedded: { timeToReady: PhaseOutcome<TimeToReadyResult>; segments: PhaseOutcome<SegmentsResult> },
  configurations: ScaledConfiguration[],
): ScaledComparisonRow[] => {
  const valueOf = <T>(outcome: PhaseOutcome<T>) => (outcome.status === 'ok' ? outcome.value : null);
  const rows: Array<{ measurement: string; pick: (ready: TimeToReadyResult | null, segments: SegmentsResult | null) => number | null }> = [];
  const labels = Object.keys(valueOf(embedded.timeToReady)?.medians ?? {});
  for (const label of labels) {
    rows.push({ measurement: `Time to ready, ${label} (server-side median)`, pick: (ready) => ready?.medians[label]?.serverMs ?? null });
    rows.push({ measurement: `Time to ready, ${label} (client-observed: create → ready webhook)`, pick: (ready) => ready?.medians[label]?.clientMs ?? null });
  }
  const embeddedSegments = valueOf(embedded.segments);
  if (embeddedSegments) {
    const rung = embeddedSegments.firstListed?.rung ?? 'first-listed variant';
    rows.push(
      { measurement: `Cold segment 0, ${rung}, player order (median)`, pick: (_, segments) => segments?.firstListed?.coldMs ?? null },
      { measurement: `Cold segment 0, ${rung}, requested first (full on-demand encode, median)`, pick: (_, segments) => segments?.firstListed?.coldDirectMs ?? null },
      { measurement: `Warm segment 0, ${rung} (median)`, pick: (_, segments) => segments?.firstListed?.warmMs ?? null },
      { measurement: `Multivariant request → last byte of segment 0, ${rung} (median)`, pick: (_, segments) => segments?.startup.medianTotalMs ?? null },
    );
  }
  return rows.map(({ measurement, pick }) => {
    const embeddedMs = pick(valueOf(embedded.timeToReady), embeddedSegments);
    return {
      measurement,
      embeddedMs,
      scaled: configurations.map((configuration) => {
        const ms = pick(valueOf(configuration.timeToReady), valueOf(configuration.segments));
        return { label: configuration.label, ms, ratio: ratio(ms, embeddedMs) };
      }),
    };
  });
};

const NOT_MEASURED = [
  'Idle memory, cached delivery next to nginx, upload throughput, cold playback in hls.js, the load phase and the ffmpeg baseline run on the embedded default only.',
  'One app node: the cross-node segment lock (one encode for requests spread over several app nodes) and a second node reading a segment back from the bucket are not timed here (e2e/api/scale-out.spec.ts and e2e/playback/s3-nodes.spec.ts check them).',
  'Segments are timed on the node that encodes them: the upload to the bucket runs behind the response, so its cost shows only as CPU and network the next measurement shares.',
  "Readiness does not wait for the source's upload to the bucket, so time to ready does not include it.",
  'Every process runs on this one 2-core machine (PostgreSQL, Redis, Swift and its memcached included), so the scaled numbers include their CPU and none of the network latency between machines.',
];

export const measureScaled = async ({
  serverEnv,
  measure,
  topologies,
  embedded,
  log,
}: {
  serverEnv: Record<string, string>;
  measure: Measure;
  topologies: Topology[];
  embedded: { timeToReady: PhaseOutcome<TimeToReadyResult>; segments: PhaseOutcome<SegmentsResult> };
  log: (line: string) => void;
}): Promise<PhaseOutcome<ScaledResult>> => {
  const started = await startScaledServices(log);
  if (!started.available) {
    log(`scaled: skipped: ${started.reason}`);
    return { status: 'skipped', reason: started.reason };
  }
  const { services } = started;
  const inputs = [...measure.readyInputs, ...(measure.segmentInput ? [measure.segmentInput] : [])];
  let files: StaticServer | undefined;
  let webhooks: WebhookReceiver | undefined;
  try {
    files = await startStaticServer(Object.fromEntries(inputs.map((input) => [path.basename(input.path), input.path])));
    webhooks = await WebhookReceiver.start(0, { verifySignatures: false });
    const configurations: ScaledConfiguration[] = [];
    for (const topology of topologies) {
      const env = { ...serverEnv, ...(await services.environmentFor(topology)) };
      configurations.push(await measureTopology({ topology, env, measure, files, webhooks, log }));
    }
    const failed = configurations.flatMap((configuration) =>
      [configuration.timeToReady, configuration.segments].flatMap((part) => (part.status === 'error' ? [`${configuration.label}: ${part.error.split('\n')[0]}`] : [])),
    );
    return {
      status: 'ok',
      value: {
        services: { postgres: 'PostgreSQL at 127.0.0.1:5432', redis: 'Redis at 127.0.0.1:6379', s3: `OpenStack Swift + s3api at ${services.swift.endpoint}` },
        configurations,
        comparison: compareWithEmbedded(embedded, configurations),
        notMeasured: [...NOT_MEASURED, ...failed.map((line) => `Failed: ${line}`)],
      },
    };
  } finally {
    await webhooks?.close();
    await files?.close();
    await services.release();
  }
};
