import type { ChaosCluster } from './chaos-cluster';
import { faultSubject, injectFault, type FaultKind, type FaultTiming, type InjectedFault } from './faults';

// One fault after another until the time is up, in a seeded random order that visits every kind
// before repeating one; now and then the next fault starts while the previous one is still on (on
// another subject: a worker killed while the store stalls, not two faults on Redis). After each,
// recovery: the time from the fault's end until every node's /api/health answers 200 again.

export type ScheduleOptions = {
  kinds: readonly FaultKind[];
  /** No fault starts after this moment (Date.now() scale). */
  until: number;
  timing: FaultTiming;
  /** Quiet time between the recovery of one fault and the next. */
  gapMs: number;
  /** Share of faults started while the previous one is still on. */
  overlapShare: number;
  seed: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
};

export type FaultRecord = InjectedFault & {
  /** Every node healthy again, or null when that did not happen within RECOVERY_LIMIT_MS. */
  recoveredAt: number | null;
  recoveryMs: number | null;
  /** The fault started while another was on. */
  overlapped: boolean;
  error?: string;
};

const RECOVERY_LIMIT_MS = 120_000;
// A fault's injection includes restarting what it killed (a node's start is bounded at 120 s).
const INJECTION_LIMIT_MS = 180_000;
const HEALTH_POLL_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** mulberry32: small, seedable, good enough to order faults reproducibly. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

/** Kinds in rounds: each round is every kind once, shuffled. */
export const faultOrder = (kinds: readonly FaultKind[], random: () => number): (() => FaultKind) => {
  let round: FaultKind[] = [];
  return () => {
    if (round.length === 0) {
      round = [...kinds];
      for (let i = round.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [round[i], round[j]] = [round[j]!, round[i]!];
      }
    }
    return round.shift()!;
  };
};

export const waitForRecovery = async (cluster: ChaosCluster, since: number, signal?: AbortSignal): Promise<number | null> => {
  while (Date.now() - since < RECOVERY_LIMIT_MS && !signal?.aborted) {
    const health = await cluster.health();
    if (health.every((node) => node.status === 200)) return Date.now();
    await sleep(HEALTH_POLL_MS);
  }
  return null;
};

const withDeadline = <T>(work: Promise<T>, ms: number, message: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
};

const expectedLengthMs = (kind: FaultKind, timing: FaultTiming) =>
  kind.startsWith('kill') || kind.includes('restart') ? timing.downMs + 15_000 : timing.outageMs;

export const runFaultSchedule = async (cluster: ChaosCluster, options: ScheduleOptions): Promise<FaultRecord[]> => {
  const random = seededRandom(options.seed);
  const nextKind = faultOrder(options.kinds, random);
  const records: FaultRecord[] = [];
  const run = async (kind: FaultKind, overlapped: boolean): Promise<FaultRecord> => {
    const startedAt = Date.now();
    options.log?.(`chaos: ${kind}${overlapped ? ' (overlapping)' : ''}`);
    try {
      const fault = await withDeadline(injectFault(cluster, kind, options.timing, random, options.log), INJECTION_LIMIT_MS, `${kind} did not finish within ${INJECTION_LIMIT_MS / 1000} s`);
      const recoveredAt = await waitForRecovery(cluster, fault.endedAt, options.signal);
      const record = { ...fault, recoveredAt, recoveryMs: recoveredAt === null ? null : recoveredAt - fault.endedAt, overlapped };
      options.log?.(`chaos: ${kind} over (${fault.note}); healthy ${record.recoveryMs === null ? 'not within 120 s' : `${(record.recoveryMs / 1000).toFixed(1)} s`} after`);
      return record;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      options.log?.(`chaos: ${kind} failed to inject: ${message}`);
      return { kind, subject: faultSubject(kind), startedAt, endedAt: Date.now(), note: '', recoveredAt: null, recoveryMs: null, overlapped, error: message };
    }
  };
  while (!options.signal?.aborted) {
    const kind = nextKind();
    if (Date.now() + expectedLengthMs(kind, options.timing) > options.until) break;
    const overlap = random() < options.overlapShare;
    if (overlap) {
      let partner = nextKind();
      for (let tries = 0; faultSubject(partner) === faultSubject(kind) && tries < options.kinds.length; tries++) partner = nextKind();
      if (faultSubject(partner) !== faultSubject(kind)) {
        const first = run(kind, false);
        await sleep(Math.min(8_000, options.timing.outageMs / 2));
        records.push(...(await Promise.all([first, run(partner, true)])));
        await sleep(options.gapMs);
        continue;
      }
    }
    records.push(await run(kind, false));
    await sleep(options.gapMs);
  }
  return records;
};
