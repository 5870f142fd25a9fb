import { childPidsOf, readMachineTicks, readProcessTicks, runningChildrenTicks, CLOCK_TICKS_PER_SECOND } from './proc-stat';
import { round } from '../stats';

// Where the machine's CPU went during a pass, in cores (CPU seconds per second): the server's
// encoders (its children: ffmpeg, ffprobe), the server itself (answering every request), the
// simulated viewers (this process), and the rest of the box. The physical limit counts ffmpeg
// alone; this shows how much of the cores ffmpeg actually got with the server and the viewers
// on the same machine.

export type CpuSplit = {
  seconds: number;
  cores: number;
  encoders: number;
  server: number;
  viewers: number;
  rest: number;
  idle: number;
};

type Reading = { at: number; machineBusy: number; machineTotal: number; serverOwn: number; serverChildren: number; benchOwn: number };

const read = (serverPid: number): Reading | null => {
  const machine = readMachineTicks();
  const server = readProcessTicks(serverPid);
  const bench = readProcessTicks('self');
  if (!machine || !server || !bench) return null;
  const serverChildren = server.reapedChildren + runningChildrenTicks(childPidsOf(serverPid));
  return { at: performance.now(), machineBusy: machine.busy, machineTotal: machine.total, serverOwn: server.own, serverChildren, benchOwn: bench.own };
};

/** Starts counting; `stop` answers the split since then, or null where /proc cannot be read. */
export const startCpuSplit = (serverPid: number | undefined, cores: number): { stop: () => CpuSplit | null } => {
  const first = serverPid === undefined ? null : read(serverPid);
  return {
    stop: () => {
      const last = serverPid === undefined ? null : read(serverPid);
      if (!first || !last) return null;
      const seconds = (last.at - first.at) / 1000;
      if (seconds <= 0) return null;
      const coresOf = (ticks: number) => round(ticks / CLOCK_TICKS_PER_SECOND / seconds, 2);
      const busy = (last.machineBusy - first.machineBusy) / (last.machineTotal - first.machineTotal);
      const encoders = coresOf(last.serverChildren - first.serverChildren);
      const server = coresOf(last.serverOwn - first.serverOwn);
      const viewers = coresOf(last.benchOwn - first.benchOwn);
      const busyCores = busy * cores;
      return {
        seconds: round(seconds, 1),
        cores,
        encoders,
        server,
        viewers,
        rest: round(Math.max(0, busyCores - encoders - server - viewers), 2),
        idle: round(Math.max(0, cores - busyCores), 2),
      };
    },
  };
};
