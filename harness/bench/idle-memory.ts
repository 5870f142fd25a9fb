import type { KeyframeProcess } from '../keyframe-process';
import { median, sleep } from '../stats';
import { descendantPids } from '../processes';
import { commandLine, findServerProcess, statusMB } from './upload-throughput';

// The server's resident memory at rest: started, answered /api/health, then left alone for a few
// seconds (start-up garbage collected, timers settled) and sampled before it has done any work.
// VmRSS is what `ps`/`top` show; RssAnon is the heap and buffers without the mapped node binary
// and shared libraries.

/** The previous measurement, for comparison in the report. */
export const PREVIOUS_IDLE_RSS = {
  rssMB: 251,
  anonMB: 201,
  source: 'bench/results.md at 6b6ccb0 (run of 2026-11-22 on git 621bba5): the upload-throughput server at start, before any request',
};

export type IdleMemory = {
  pid: number;
  identifiedBy: string;
  settleMs: number;
  samples: Array<{ rssMB: number | null; anonMB: number | null }>;
  rssMB: number | null;
  anonMB: number | null;
  hwmMB: number | null;
  /** The playback workers beside the server (PLAYBACK_WORKERS), each with its VmRSS. */
  playbackWorkers: Array<{ pid: number; rssMB: number | null }>;
  previous: typeof PREVIOUS_IDLE_RSS;
};

export const measureIdleMemory = async (server: KeyframeProcess, { settleMs = 5_000, samples = 5, intervalMs = 200 } = {}): Promise<IdleMemory> => {
  if (server.pid === undefined) throw new Error('the server has no pid');
  const process = findServerProcess(server.pid, Number(new URL(server.baseUrl).port));
  await sleep(settleMs);
  const taken: IdleMemory['samples'] = [];
  for (let index = 0; index < samples; index++) {
    if (index > 0) await sleep(intervalMs);
    taken.push({ rssMB: statusMB(process.pid, 'VmRSS'), anonMB: statusMB(process.pid, 'RssAnon') });
  }
  const known = (values: Array<number | null>) => values.filter((value): value is number => value !== null);
  return {
    pid: process.pid,
    identifiedBy: process.identifiedBy,
    settleMs,
    samples: taken,
    rssMB: median(known(taken.map((sample) => sample.rssMB))),
    anonMB: median(known(taken.map((sample) => sample.anonMB))),
    hwmMB: statusMB(process.pid, 'VmHWM'),
    playbackWorkers: descendantPids(process.pid)
      .filter((pid) => commandLine(pid).includes('playback-worker'))
      .map((pid) => ({ pid, rssMB: statusMB(pid, 'VmRSS') })),
    previous: PREVIOUS_IDLE_RSS,
  };
};
