import { percentile } from '../stats';
import { CUT_SHORT_NOTE } from './recorded-http';
import type { RequestRecord, WorkloadRecord } from './workload-record';

// What the recorded requests say about availability: how many failed and how (a 500 is a bug, an
// outage must answer 503, with Retry-After so clients know when to come back), and how many hung.
// Overall, and per fault window.

/** A request this slow is a hang (a client or proxy would have given up on it). */
export const HANG_MS = 30_000;

const isCutShort = (request: RequestRecord): boolean => request.status === 0 && (request.note?.includes(CUT_SHORT_NOTE) ?? false);

const maxOf = (values: number[]): number | null => (values.length === 0 ? null : values.reduce((max, value) => Math.max(max, value), 0));

export type KindFigures = {
  count: number;
  serverErrors: number;
  networkErrors: number;
  hangs: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
};

export type RequestFigures = {
  total: number;
  byKind: Record<string, KindFigures>;
  status500: number;
  /** Each 500, briefly (kind, path, error type). */
  status500Examples: string[];
  status503WithRetryAfter: number;
  status503WithoutRetryAfter: number;
  /** 503s to the simulated viewers, which do not see headers. */
  status503HeadersUnseen: number;
  /** 5xx other than 500 and 503 (e.g. the balancer's 502/504 when a node died mid-request), by status. */
  otherServerErrors: Record<string, number>;
  /** No answer (refused, reset, the 60 s client timeout), not counting those cut short at the end. */
  networkErrors: number;
  cutShortAtStop: number;
  hangs: number;
  maxDurationMs: number | null;
  /** The five slowest, briefly. */
  slowest: string[];
};

const describe = (request: RequestRecord): string =>
  `${request.kind} ${request.method} ${request.path} → ${request.status}${request.errorType ? ` ${request.errorType}` : ''} in ${request.durationMs} ms${request.note ? ` (${request.note})` : ''}`;

const figuresOfKind = (requests: RequestRecord[]): KindFigures => {
  const durations = requests.map((request) => request.durationMs);
  return {
    count: requests.length,
    serverErrors: requests.filter((request) => request.status >= 500).length,
    networkErrors: requests.filter((request) => request.status === 0 && !isCutShort(request)).length,
    hangs: requests.filter((request) => request.durationMs >= HANG_MS).length,
    p50Ms: percentile(durations, 50),
    p99Ms: percentile(durations, 99),
    maxMs: maxOf(durations),
  };
};

export const summariseRequests = (requests: RequestRecord[]): RequestFigures => {
  const kinds = [...new Set(requests.map((request) => request.kind))].sort();
  const with500 = requests.filter((request) => request.status === 500);
  const with503 = requests.filter((request) => request.status === 503);
  const otherServerErrors: Record<string, number> = {};
  for (const request of requests) {
    if (request.status > 500 && request.status !== 503) otherServerErrors[request.status] = (otherServerErrors[request.status] ?? 0) + 1;
  }
  return {
    total: requests.length,
    byKind: Object.fromEntries(kinds.map((kind) => [kind, figuresOfKind(requests.filter((request) => request.kind === kind))])),
    status500: with500.length,
    status500Examples: with500.slice(0, 10).map(describe),
    status503WithRetryAfter: with503.filter((request) => !request.headersUnseen && request.retryAfter !== undefined).length,
    status503WithoutRetryAfter: with503.filter((request) => !request.headersUnseen && request.retryAfter === undefined).length,
    status503HeadersUnseen: with503.filter((request) => request.headersUnseen).length,
    otherServerErrors,
    networkErrors: requests.filter((request) => request.status === 0 && !isCutShort(request)).length,
    cutShortAtStop: requests.filter(isCutShort).length,
    hangs: requests.filter((request) => request.durationMs >= HANG_MS).length,
    maxDurationMs: maxOf(requests.map((request) => request.durationMs)),
    slowest: [...requests].sort((a, b) => b.durationMs - a.durationMs).slice(0, 5).map(describe),
  };
};

export type FaultWindow = { kind: string; startedAt: number; endedAt: number };

export type WindowFigures = FaultWindow & {
  /** Requests under way at some point of the window (sent before it and still waiting count too). */
  requests: number;
  p50Ms: number | null;
  p99Ms: number | null;
  serverErrors: number;
  status500: number;
  networkErrors: number;
  hangs: number;
};

/** The requests that overlapped each window (a fault, from injection to recovery). */
export const requestsDuring = (record: Pick<WorkloadRecord, 'requests'>, windows: FaultWindow[]): WindowFigures[] =>
  windows.map((window) => {
    const overlapping = record.requests.filter(
      (request) => request.startedAt <= window.endedAt && request.startedAt + request.durationMs >= window.startedAt,
    );
    const figures = figuresOfKind(overlapping);
    return {
      ...window,
      requests: figures.count,
      p50Ms: figures.p50Ms,
      p99Ms: figures.p99Ms,
      serverErrors: figures.serverErrors,
      status500: overlapping.filter((request) => request.status === 500).length,
      networkErrors: figures.networkErrors,
      hangs: figures.hangs,
    };
  });
