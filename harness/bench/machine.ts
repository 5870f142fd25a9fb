import { readFileSync } from 'node:fs';
import os from 'node:os';
import { descendantPids, runCommand } from '../processes';
import { round, sleep } from '../stats';

// What the numbers were measured on, and how busy the machine was with other work: a benchmark on
// a shared two-core machine is only as good as the idle CPU it had.

export type MachineInfo = {
  cpuModel: string;
  cores: number;
  availableParallelism: number;
  memoryGiB: number;
  platform: string;
  kernel: string;
  node: string;
  ffmpeg: string;
  ffprobe: string;
};

const firstLine = async (command: string, args: string[]): Promise<string> => {
  try {
    const result = await runCommand(command, args, { timeoutMs: 30_000 });
    return result.stdout.split('\n')[0]?.trim() || `unavailable (exit ${result.code})`;
  } catch (error) {
    return `unavailable (${error instanceof Error ? error.message : String(error)})`;
  }
};

export const machineInfo = async (ffmpeg: string, ffprobe: string): Promise<MachineInfo> => {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    availableParallelism: os.availableParallelism(),
    memoryGiB: round(os.totalmem() / 1024 ** 3, 1),
    platform: `${os.platform()} ${os.arch()}`,
    kernel: os.release(),
    node: process.version,
    ffmpeg: await firstLine(ffmpeg, ['-hide_banner', '-version']),
    ffprobe: await firstLine(ffprobe, ['-hide_banner', '-version']),
  };
};

type CpuTimes = { busy: number; total: number };

const readCpuTimes = (): CpuTimes | null => {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = values;
    const busy = user + nice + system + irq + softirq + steal;
    return { busy, total: busy + idle + iowait };
  } catch {
    return null;
  }
};

export type LoadSnapshot = {
  label: string;
  at: string;
  loadAverage1m: number;
  /** Share of all cores busy over the sample window (0–100 %), whoever used them. */
  cpuBusyPercent: number | null;
  windowMs: number;
};

/** Machine-wide CPU use over `windowMs`; taken while the benchmark itself is idle, it is other people's load. */
export const sampleLoad = async (label: string, windowMs = 1_000): Promise<LoadSnapshot> => {
  const before = readCpuTimes();
  await sleep(windowMs);
  const after = readCpuTimes();
  const busy =
    before && after && after.total > before.total ? round((100 * (after.busy - before.busy)) / (after.total - before.total), 1) : null;
  return { label, at: new Date().toISOString(), loadAverage1m: round(os.loadavg()[0] ?? 0, 2), cpuBusyPercent: busy, windowMs };
};

/**
 * Waits (up to `maxWaitMs`) until other work leaves the CPU mostly idle: `quietSamples` consecutive
 * 1 s samples under `thresholdPercent`. Returns the last sample, labelled with the time waited.
 */
export const waitForQuiet = async ({
  label,
  maxWaitMs,
  thresholdPercent = 20,
  quietSamples = 3,
  log,
}: {
  label: string;
  maxWaitMs: number;
  thresholdPercent?: number;
  quietSamples?: number;
  log: (line: string) => void;
}): Promise<LoadSnapshot> => {
  const startedAt = performance.now();
  let quiet = 0;
  let announced = false;
  for (;;) {
    const sample = await sampleLoad(label);
    quiet = sample.cpuBusyPercent !== null && sample.cpuBusyPercent < thresholdPercent ? quiet + 1 : 0;
    const waitedMs = performance.now() - startedAt;
    if (quiet >= quietSamples || waitedMs >= maxWaitMs) {
      const suffix = quiet >= quietSamples ? '' : ', gave up waiting';
      return { ...sample, label: `${label} (waited ${round(waitedMs / 1000, 0)} s for a quiet CPU${suffix})` };
    }
    if (!announced && quiet === 0) {
      log(`${label}: other work is using ${sample.cpuBusyPercent} % of the CPU; waiting up to ${round(maxWaitMs / 60_000, 1)} min for it to go quiet…`);
      announced = true;
    }
  }
};

/** CPU ticks (utime + stime + reaped children) of this process and every living descendant. */
const benchmarkTicks = (): number => {
  let total = 0;
  for (const pid of [process.pid, ...descendantPids(process.pid)]) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
      total += (fields[11] ?? 0) + (fields[12] ?? 0) + (fields[13] ?? 0) + (fields[14] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return total;
};

export type PhaseCpu = {
  phase: string;
  wallMs: number;
  /** Share of all cores busy during the phase (100 % = every core), whoever used them. */
  machineBusyPercent: number | null;
  /** The benchmark, the servers it started and their ffmpeg processes. */
  benchmarkPercent: number | null;
  /** Everything else: other people's tests, builds, … */
  otherPercent: number | null;
};

/** Splits the CPU use during a phase into the benchmark's own processes and everything else. */
export const phaseMeter = (phase: string): { stop: () => PhaseCpu } => {
  const machineBefore = readCpuTimes();
  const oursBefore = benchmarkTicks();
  const startedAt = performance.now();
  return {
    stop: () => {
      const machineAfter = readCpuTimes();
      const oursAfter = benchmarkTicks();
      const wallMs = round(performance.now() - startedAt, 0);
      if (!machineBefore || !machineAfter || machineAfter.total <= machineBefore.total) {
        return { phase, wallMs, machineBusyPercent: null, benchmarkPercent: null, otherPercent: null };
      }
      const total = machineAfter.total - machineBefore.total;
      const busy = (100 * (machineAfter.busy - machineBefore.busy)) / total;
      const ours = Math.min(busy, (100 * (oursAfter - oursBefore)) / total);
      return {
        phase,
        wallMs,
        machineBusyPercent: round(busy, 1),
        benchmarkPercent: round(ours, 1),
        otherPercent: round(Math.max(0, busy - ours), 1),
      };
    },
  };
};
