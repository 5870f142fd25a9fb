import type { KeyframeProcess } from '../keyframe-process';
import type { ChaosCluster } from './chaos-cluster';

// The faults a chaos run injects, each as an operator meets it: what breaks, for how long, and
// what "over" means (a killed process is started again, a stalled store answers again). A fault's
// window runs from the injection to its end; recovery is measured from the end (fault-schedule.ts).

export const FAULT_KINDS = [
  'kill-app',
  'kill-worker',
  'redis-restart-empty',
  'redis-restart-snapshot',
  'postgres-restart',
  'storage-stall',
  'storage-unavailable',
  'disk-full',
  'freeze-app',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** A comma-separated list of fault kinds (a command-line option). */
export const parseFaultKinds = (list: string): FaultKind[] => {
  const kinds = list.split(',').map((kind) => kind.trim()).filter(Boolean);
  const unknown = kinds.filter((kind) => !(FAULT_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0 || kinds.length === 0) throw new Error(`fault kinds are ${FAULT_KINDS.join(', ')} (got "${list}")`);
  return kinds as FaultKind[];
};

/** What a fault breaks: two faults on the same subject never overlap. */
export const faultSubject = (kind: FaultKind): string =>
  kind.startsWith('redis') ? 'redis' : kind.startsWith('storage') ? 'storage' : kind === 'postgres-restart' ? 'postgres' : kind === 'kill-worker' ? 'worker' : 'app';

export type FaultTiming = {
  /** How long a killed process or dependency stays down before it is started again. */
  downMs: number;
  /** How long a stall, an outage, a full disk or a freeze lasts. */
  outageMs: number;
};

export type InjectedFault = { kind: FaultKind; subject: string; startedAt: number; endedAt: number; note: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;

const killAndRestart = async (cluster: ChaosCluster, node: KeyframeProcess, downMs: number, log: (line: string) => void) => {
  await node.kill9();
  log(`chaos: ${node.label} killed`);
  await sleep(downMs);
  // The fault ends when the node is started again: its own start-up time is part of the recovery.
  const endedAt = Date.now();
  await cluster.restartNode(node);
  log(`chaos: ${node.label} started again`);
  return endedAt;
};

/** Injects one fault and resolves when it is over (`endedAt`); recovery is the caller's to measure. */
export const injectFault = async (
  cluster: ChaosCluster,
  kind: FaultKind,
  timing: FaultTiming,
  random: () => number,
  log: (line: string) => void = () => undefined,
): Promise<InjectedFault> => {
  const startedAt = Date.now();
  const done = (endedAt: number, note: string): InjectedFault => ({ kind, subject: faultSubject(kind), startedAt, endedAt, note });
  switch (kind) {
    case 'kill-app':
    case 'kill-worker': {
      const node = pick(kind === 'kill-app' ? cluster.apps : cluster.workers, random);
      const label = node.label;
      return done(await killAndRestart(cluster, node, timing.downMs, log), `SIGKILL to ${label}'s process group, started again ${timing.downMs / 1000} s later`);
    }
    case 'redis-restart-empty':
    case 'redis-restart-snapshot': {
      const persisted = kind === 'redis-restart-snapshot';
      await (persisted ? cluster.redis.killAfterSnapshot() : cluster.redis.kill());
      await sleep(timing.downMs);
      const endedAt = Date.now();
      await cluster.redis.start();
      return done(endedAt, persisted ? 'SAVE, SIGKILL, started from the snapshot' : 'SIGKILL, started empty (queues, locks and counters gone)');
    }
    case 'postgres-restart': {
      await cluster.postgres.kill();
      await sleep(timing.downMs);
      const endedAt = Date.now();
      await cluster.postgres.start();
      return done(endedAt, 'SIGKILL of the postmaster (crash recovery on start)');
    }
    case 'storage-stall':
    case 'storage-unavailable': {
      cluster.storage.setMode(kind === 'storage-stall' ? 'stall' : 'unavailable');
      await sleep(timing.outageMs);
      cluster.storage.setMode('pass');
      return done(Date.now(), kind === 'storage-stall' ? 'object store accepts connections and answers nothing' : 'object store answers 503 SlowDown to everything');
    }
    case 'disk-full': {
      const disk = cluster.disk;
      if (!disk) throw new Error(`disk-full cannot run here: ${cluster.diskUnavailableReason}`);
      disk.fill();
      await sleep(timing.outageMs);
      disk.free();
      return done(Date.now(), `${cluster.apps[0]!.label}'s DATA_DIR filled to ENOSPC`);
    }
    case 'freeze-app': {
      const node = pick(cluster.apps, random);
      cluster.freeze(node, true);
      await sleep(timing.outageMs);
      cluster.freeze(node, false);
      return done(Date.now(), `SIGSTOP to ${node.label}'s process group, SIGCONT ${timing.outageMs / 1000} s later`);
    }
  }
};
