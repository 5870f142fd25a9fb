import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCommand } from '../processes';
import { round } from '../stats';
import { measureThroughput } from './throughput';

// One timed load run against one URL: a fixed number of keep-alive connections, each sending its
// next request as soon as the previous response has ended, for a fixed time. wrk (C, epoll, one
// thread) is the generator of choice, so the client is not what limits the result; without wrk
// the benchmark's own node:http client does the same (and the report says so, since a Node client
// on the same two cores saturates long before nginx does).

export type LoadRun = {
  tool: 'wrk' | 'node';
  url: string;
  connections: number;
  threads: number;
  durationSeconds: number;
  requests: number;
  requestsPerSecond: number;
  megabytesPerSecond: number;
  /** Bytes per request as the client counted them: headers + body with wrk, the body alone with node. */
  bytesPerRequest: number | null;
  latencyMs: { p50: number | null; p90: number | null; p99: number | null; max: number | null; mean: number | null };
  errors: { connect: number; read: number; write: number; timeout: number; non2xx3xx: number };
  /** wrk's own text output (its latency distribution), for the record. */
  rawOutput?: string;
};

// wrk calls done() once at the end; latency values are microseconds. Printing them from the script
// avoids parsing wrk's rounded text ("1.23ms").
const WRK_SCRIPT = `-- Keyframe benchmark: machine-readable summary of a wrk run (harness/bench/load-generator.ts)
done = function(summary, latency, requests)
  io.write(string.format(
    'KEYFRAME-WRK {"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f,"p50":%.0f,"p90":%.0f,"p99":%.0f,"max":%.0f,"mean":%.3f}\\n',
    summary.requests, summary.duration, summary.bytes,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
`;

type WrkSummary = {
  requests: number;
  durationUs: number;
  bytes: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
};

export const writeWrkScript = (dir: string): string => {
  const file = path.join(dir, 'keyframe-wrk-summary.lua');
  writeFileSync(file, WRK_SCRIPT);
  return file;
};

const UNIT_US: Record<string, number> = { us: 1, ms: 1e3, s: 1e6, m: 60e6, h: 3600e6 };
const UNIT_BYTES: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

/** wrk's text report (`--latency`), for a wrk without Lua; its numbers are rounded to 2 decimals. */
export const parseWrkText = (stdout: string): WrkSummary => {
  const duration = (text: string | undefined) => {
    const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text ?? '');
    return match ? Number(match[1]) * (UNIT_US[match[2] ?? ''] ?? NaN) : NaN;
  };
  const percentile = (p: number) => duration(new RegExp(`^\\s*${p}(?:\\.0+)?%\\s+(\\S+)`, 'm').exec(stdout)?.[1]);
  const total = /(\d+) requests in ([\d.]+\w+), ([\d.]+)(B|KB|MB|GB|TB) read/.exec(stdout);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const latency = /^\s*Latency\s+(\S+)\s+\S+\s+(\S+)/m.exec(stdout);
  if (!total) throw new Error(`wrk printed no summary: ${stdout.trim().slice(-600)}`);
  return {
    requests: Number(total[1]),
    durationUs: duration(total[2]),
    bytes: Math.round(Number(total[3]) * (UNIT_BYTES[total[4] ?? ''] ?? NaN)),
    connect: Number(socket?.[1] ?? 0),
    read: Number(socket?.[2] ?? 0),
    write: Number(socket?.[3] ?? 0),
    timeout: Number(socket?.[4] ?? 0),
    status: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
    p50: percentile(50),
    p90: percentile(90),
    p99: percentile(99),
    max: duration(latency?.[2]),
    mean: duration(latency?.[1]),
  };
};

/** The script's JSON line; wrk's text report when there is none (a wrk built without Lua). */
export const parseWrkSummary = (stdout: string): WrkSummary => {
  const line = stdout.split('\n').find((entry) => entry.startsWith('KEYFRAME-WRK '));
  return line ? (JSON.parse(line.slice('KEYFRAME-WRK '.length)) as WrkSummary) : parseWrkText(stdout);
};

const usToMs = (value: number) => round(value / 1000, 2);

export const runWrk = async ({
  wrk,
  script,
  url,
  connections,
  threads,
  durationSeconds,
}: {
  wrk: string;
  script: string;
  url: string;
  connections: number;
  threads: number;
  durationSeconds: number;
}): Promise<LoadRun> => {
  const args = ['-t', String(threads), '-c', String(connections), '-d', `${durationSeconds}s`, '--timeout', '10s', '--latency', '-s', script, url];
  const result = await runCommand(wrk, args, { timeoutMs: (durationSeconds + 30) * 1000 });
  if (result.code !== 0) throw new Error(`wrk exited with ${result.signal ?? result.code}: ${(result.stderr || result.stdout).trim().slice(-600)}`);
  const summary = parseWrkSummary(result.stdout);
  const seconds = summary.durationUs / 1e6;
  return {
    tool: 'wrk',
    url,
    connections,
    threads,
    durationSeconds: round(seconds, 2),
    requests: summary.requests,
    requestsPerSecond: round(summary.requests / seconds, 1),
    megabytesPerSecond: round(summary.bytes / 1e6 / seconds, 1),
    bytesPerRequest: summary.requests > 0 ? Math.round(summary.bytes / summary.requests) : null,
    latencyMs: { p50: usToMs(summary.p50), p90: usToMs(summary.p90), p99: usToMs(summary.p99), max: usToMs(summary.max), mean: usToMs(summary.mean) },
    errors: { connect: summary.connect, read: summary.read, write: summary.write, timeout: summary.timeout, non2xx3xx: summary.status },
    rawOutput: result.stdout.split('\n').filter((line) => !line.startsWith('KEYFRAME-WRK ')).join('\n').trim(),
  };
};

/** The fallback: the benchmark's node:http keep-alive client, same connections and duration. */
export const runNodeLoad = async ({ url, connections, durationSeconds }: { url: string; connections: number; durationSeconds: number }): Promise<LoadRun> => {
  const result = await measureThroughput({ url, concurrency: connections, durationMs: durationSeconds * 1000 });
  const failedByStatus = Object.entries(result.statusCounts)
    .filter(([key]) => /^\d+$/.test(key) && !/^[23]/.test(key))
    .reduce((sum, [, count]) => sum + count, 0);
  return {
    tool: 'node',
    url,
    connections,
    threads: 1,
    durationSeconds: round(result.wallMs / 1000, 2),
    requests: result.requests,
    requestsPerSecond: result.requestsPerSecond,
    megabytesPerSecond: result.megabytesPerSecond,
    bytesPerRequest: result.bytesPerResponse,
    latencyMs: result.latencyMs,
    errors: { connect: 0, read: result.failed - failedByStatus, write: 0, timeout: 0, non2xx3xx: failedByStatus },
  };
};
