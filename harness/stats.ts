// Small numeric helpers. Times are milliseconds throughout the benchmark.

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const median = (values: readonly number[]): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? 0;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
};

/** Nearest-rank percentile (p in 0..100). */
export const percentile = (values: readonly number[], p: number): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? null;
};

export const round = (value: number, digits = 1): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

export const ratio = (numerator: number | null, denominator: number | null): number | null =>
  numerator === null || denominator === null || denominator === 0 ? null : round(numerator / denominator, 3);

export const formatMs = (ms: number | null | undefined): string => {
  if (ms === null || ms === undefined) return 'n/a';
  return ms >= 10_000 ? `${round(ms / 1000, 1)} s` : ms >= 1000 ? `${round(ms / 1000, 2)} s` : `${Math.round(ms)} ms`;
};

export const formatRatio = (value: number | null | undefined): string =>
  value === null || value === undefined ? 'n/a' : value !== 0 && Math.abs(value) < 0.1 ? `${Number(value.toPrecision(2))}×` : `${round(value, 2)}×`;

/** Latencies down to tens of microseconds (a cached playlist from nginx answers in ~0.3 ms). */
export const formatLatency = (ms: number | null | undefined): string => {
  if (ms === null || ms === undefined) return 'n/a';
  if (ms < 10) return `${round(ms, 2)} ms`;
  if (ms < 100) return `${round(ms, 1)} ms`;
  return formatMs(ms);
};

export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));
