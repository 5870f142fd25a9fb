// The CPU time an ffmpeg run used, as ffmpeg itself reports it (`-benchmark`: the user and system
// time of its process, every thread included). Encode costs are kept in CPU seconds, not
// wall-clock seconds: wall-clock time also says how long the run waited for the CPU, so costs
// measured under load rose with the load and kept viewers out long after it had passed.
// ffmpeg prints the report at log level info, so the run logs at info, each line tagged with its
// level (`level+`): the errors can still be told from the chatter.

/**
 * CPU seconds an ffmpeg run spends before `-benchmark` starts counting: the process start, opening
 * and probing the input (a few frames decoded), building the filters and encoders. Measured on a
 * 2-core EPYC with a 4 s 270p segment of the 1080p camera-like input: 0.99 CPU-s by the kernel
 * (`time`) against 0.90 reported, three runs each. Left out, a segment's cost came out about 10 %
 * low, and admission promised seven assets' viewers real time where the encoders kept up with six
 * (capacity bench, 10 fresh assets: every admitted viewer's segments were late by a little).
 */
export const UNREPORTED_RUN_CPU_SECONDS = 0.09;

const REPORT = /bench: utime=([\d.]+)s stime=([\d.]+)s/;
const PROBLEM = /\[(warning|error|fatal|panic)\] /;

/** The same ffmpeg arguments, asking for the CPU report (and level tags) on stderr. */
export const withCpuReport = (args: readonly string[]): string[] => {
  const levelAt = args.findIndex((arg) => arg === '-v' || arg === '-loglevel');
  const rest = levelAt === -1 ? [...args] : [...args.slice(0, levelAt), ...args.slice(levelAt + 2)];
  return ['-v', 'level+info', '-nostats', '-benchmark', ...rest];
};

/**
 * User + system seconds of a run from its stderr, with what it spent before counting
 * (UNREPORTED_RUN_CPU_SECONDS); null when the report is missing (the run failed).
 */
export const cpuSecondsFromReport = (stderr: string): number | null => {
  const match = REPORT.exec(stderr);
  if (!match) return null;
  const seconds = Number(match[1]) + Number(match[2]) + UNREPORTED_RUN_CPU_SECONDS;
  return Number.isFinite(seconds) ? seconds : null;
};

/** The warnings and errors of a run made with withCpuReport, without their tags: what an error message quotes. */
export const problemsInReport = (stderr: string): string =>
  stderr
    .split('\n')
    .filter((line) => PROBLEM.test(line))
    .map((line) => line.replace(PROBLEM, ''))
    .join('\n');
