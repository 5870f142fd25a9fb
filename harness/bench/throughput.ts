import type { Socket } from 'node:net';
import { keepAliveAgent, request } from '../http';
import { percentile, round } from '../stats';

// Requests per second for one cached URL over keep-alive connections, C at a time: either N
// requests, or as many as fit in a fixed time (the delivery comparison's fallback when wrk is
// missing).

export type ThroughputResult = {
  url: string;
  requests: number;
  concurrency: number;
  ok: number;
  failed: number;
  statusCounts: Record<string, number>;
  bytesPerResponse: number | null;
  wallMs: number;
  requestsPerSecond: number;
  megabytesPerSecond: number;
  latencyMs: { p50: number | null; p90: number | null; p99: number | null; max: number | null; mean: number | null };
  /** Distinct TCP connections the timed requests went out on (keep-alive: at most the concurrency). */
  socketsUsed: number;
  /** Every request's time to last byte, in completion order (left out of long runs). */
  latenciesMs: number[];
};

export const measureThroughput = async ({
  url,
  requests: requestLimit = 200,
  concurrency = 16,
  durationMs,
}: {
  url: string;
  requests?: number;
  concurrency?: number;
  /** Run for this long instead of a fixed number of requests. */
  durationMs?: number;
}): Promise<ThroughputResult> => {
  const agent = keepAliveAgent(concurrency);
  const sockets = new Set<Socket>();
  try {
    // Make sure the segment is stored (warm) before timing.
    await request({ url, agent, keepBody: false });
    const latencies: number[] = [];
    const statusCounts: Record<string, number> = {};
    let bytes: number | null = null;
    let started = 0;
    let failed = 0;
    let totalBytes = 0;
    const onSocket = (socket: Socket) => sockets.add(socket);
    const startedAt = performance.now();
    const deadline = durationMs === undefined ? Infinity : startedAt + durationMs;
    const more = () => (durationMs === undefined ? started < requestLimit : performance.now() < deadline);
    const worker = async () => {
      while (more()) {
        started++;
        try {
          const response = await request({ url, agent, keepBody: false, onSocket });
          latencies.push(response.ttlbMs);
          statusCounts[String(response.status)] = (statusCounts[String(response.status)] ?? 0) + 1;
          totalBytes += response.bytes;
          if (response.status === 200) bytes ??= response.bytes;
          else failed++;
        } catch (error) {
          failed++;
          const key = error instanceof Error ? error.message.slice(0, 80) : 'error';
          statusCounts[key] = (statusCounts[key] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const wallMs = performance.now() - startedAt;
    const requests = started;
    return {
      url,
      requests,
      concurrency,
      ok: requests - failed,
      failed,
      statusCounts,
      bytesPerResponse: bytes,
      wallMs: round(wallMs, 1),
      requestsPerSecond: round((requests / wallMs) * 1000, 1),
      megabytesPerSecond: round(totalBytes / 1e6 / (wallMs / 1000), 1),
      latencyMs: {
        p50: round(percentile(latencies, 50) ?? 0, 1),
        p90: round(percentile(latencies, 90) ?? 0, 1),
        p99: round(percentile(latencies, 99) ?? 0, 1),
        max: round(percentile(latencies, 100) ?? 0, 1),
        mean: latencies.length ? round(latencies.reduce((sum, value) => sum + value, 0) / latencies.length, 2) : null,
      },
      socketsUsed: sockets.size,
      latenciesMs: latencies.length <= 1000 ? latencies.map((value) => round(value, 1)) : [],
    };
  } finally {
    agent.destroy();
  }
};
