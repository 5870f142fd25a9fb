import { median, percentile } from '../stats';
import { ChaosCluster, type ChaosS3 } from './chaos-cluster';
import { runFaultSchedule, type FaultRecord } from './fault-schedule';
import { FAULT_KINDS, type FaultKind, type FaultTiming } from './faults';
import { checkInvariants, invariantViolations, requestsDuring, type ChaosInvariants, type WorkloadRecord } from './invariants';
import { startChaosWorkload } from './workload';

// A chaos run: the cluster under steady mixed load (workload.ts) while faults come one after
// another (fault-schedule.ts), then the load stops, everything created is given time to settle,
// and the invariants are checked (invariants.ts). The result is figures, not a verdict: the bench
// reports them and the e2e test asserts that no guarantee was broken.

export type ChaosOptions = {
  /** Load (the warm-up included) and faults, from the moment the load runs; no fault starts that would end after it. */
  durationSeconds: number;
  /** Load without faults first, so the first fault meets a working cluster with assets to watch. */
  warmupSeconds: number;
  kinds: readonly FaultKind[];
  timing: FaultTiming;
  gapSeconds: number;
  overlapShare: number;
  seed: number;
  /** How long created assets get to leave `preparing` after the load stops. */
  settleSeconds: number;
};

export const DEFAULT_CHAOS_OPTIONS: ChaosOptions = {
  durationSeconds: 600,
  warmupSeconds: 40,
  kinds: FAULT_KINDS,
  timing: { downMs: 5_000, outageMs: 20_000 },
  gapSeconds: 15,
  overlapShare: 0.25,
  seed: 1,
  settleSeconds: 180,
};

type Latency = { count: number; p50Ms: number | null; p99Ms: number | null; maxMs: number | null };

export type FaultKindSummary = {
  kind: FaultKind;
  injected: number;
  failedToInject: number;
  /** From the fault's end until every node answered /api/health 200. */
  recoveryMs: { median: number | null; max: number | null };
  unrecovered: number;
};

export type ChaosResult = {
  options: ChaosOptions;
  topology: string;
  skippedKinds: Array<{ kind: FaultKind; reason: string }>;
  faults: FaultRecord[];
  byKind: FaultKindSummary[];
  requests: { duringFaults: Latency; outsideFaults: Latency; byFault: ReturnType<typeof requestsDuring> };
  invariants: ChaosInvariants;
  violations: string[];
  /** What the nodes logged as errors (a 500's cause): the test's message quotes them. */
  serverErrors: string[];
  wallSeconds: number;
};

const latencyOf = (durations: number[]): Latency => ({
  count: durations.length,
  p50Ms: percentile(durations, 50),
  p99Ms: percentile(durations, 99),
  maxMs: durations.length ? Math.max(...durations) : null,
});

const duringAny = (at: number, faults: FaultRecord[]) => faults.some((fault) => at >= fault.startedAt && at <= (fault.recoveredAt ?? fault.endedAt));

export const summariseKinds = (faults: FaultRecord[]): FaultKindSummary[] =>
  [...new Set(faults.map((fault) => fault.kind))].map((kind) => {
    const ofKind = faults.filter((fault) => fault.kind === kind);
    const recoveries = ofKind.flatMap((fault) => (fault.recoveryMs === null ? [] : [fault.recoveryMs]));
    return {
      kind,
      injected: ofKind.filter((fault) => !fault.error).length,
      failedToInject: ofKind.filter((fault) => fault.error).length,
      recoveryMs: { median: median(recoveries), max: recoveries.length ? Math.max(...recoveries) : null },
      unrecovered: ofKind.filter((fault) => !fault.error && fault.recoveryMs === null).length,
    };
  });

type Log = (line: string) => void;

/** The load on, the faults one after another, the load off, the invariants: the cluster's part of a run. */
const faultsUnderLoad = async (cluster: ChaosCluster, options: ChaosOptions, kinds: readonly FaultKind[], log: Log) => {
  const abort = new AbortController();
  const workload = startChaosWorkload({ target: cluster.target, signal: abort.signal, log });
  try {
    await workload.ready;
    const until = Date.now() + options.durationSeconds * 1000;
    log(`chaos: load for ${options.warmupSeconds} s before the first fault`);
    await new Promise((resolve) => setTimeout(resolve, options.warmupSeconds * 1000));
    const faults = await runFaultSchedule(cluster, {
      kinds,
      until,
      timing: options.timing,
      gapMs: options.gapSeconds * 1000,
      overlapShare: options.overlapShare,
      seed: options.seed,
      log,
    });
    log('chaos: faults over; stopping the load');
    abort.abort();
    const record: WorkloadRecord = await workload.stop();
    log(`chaos: checking the invariants (assets get up to ${options.settleSeconds} s to settle)`);
    const invariants = await checkInvariants({ target: cluster.target, record, settleTimeoutMs: options.settleSeconds * 1000 });
    return { faults, record, invariants };
  } finally {
    abort.abort();
    await workload.close();
  }
};

export const runChaos = async ({
  s3,
  options,
  log = () => undefined,
  logDir,
}: {
  s3: ChaosS3;
  options: ChaosOptions;
  log?: Log;
  /** Where the nodes', nginx's and the dependencies' logs are written at the end. */
  logDir?: string;
}): Promise<ChaosResult> => {
  const startedAt = Date.now();
  const cluster = await ChaosCluster.start({ s3, log });
  try {
    const skippedKinds = cluster.disk ? [] : [{ kind: 'disk-full' as const, reason: cluster.diskUnavailableReason ?? 'no disk of its own' }];
    const kinds = options.kinds.filter((kind) => !skippedKinds.some((skipped) => skipped.kind === kind));
    const { faults, record, invariants } = await faultsUnderLoad(cluster, options, kinds, log);
    const windows = faults.map((fault) => ({ kind: fault.kind, startedAt: fault.startedAt, endedAt: fault.recoveredAt ?? fault.endedAt }));
    const during = (inside: boolean) => latencyOf(record.requests.filter((request) => duringAny(request.startedAt, faults) === inside).map((request) => request.durationMs));
    return {
      options,
      topology: 'nginx (docs/scaling-out.md settings) → 2 app nodes (KEYFRAME_ROLE=http, RTMP each); 2 workers; private PostgreSQL and Redis; Swift S3 behind a fault proxy',
      skippedKinds,
      faults,
      byKind: summariseKinds(faults),
      requests: { duringFaults: during(true), outsideFaults: during(false), byFault: requestsDuring(record, windows) },
      invariants,
      violations: invariantViolations(invariants),
      serverErrors: cluster.serverErrors(),
      wallSeconds: Math.round((Date.now() - startedAt) / 1000),
    };
  } finally {
    if (logDir) cluster.saveLogs(logDir);
    await cluster.dispose();
  }
};
