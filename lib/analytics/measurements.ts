// How a metric's per-view values become one number (Mux's `measurement`). Percentiles use the
// nearest-rank method on the sorted values.

export const MEASUREMENTS = ['95th', 'median', 'avg', 'count', 'sum'] as const;
export type Measurement = (typeof MEASUREMENTS)[number];

const percentile = (sorted: readonly number[], fraction: number): number => {
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return sorted[rank - 1] as number;
};

/** The measurement of `values` (nulls are views without a value and are left out); null when none has one. */
export const measure = (values: readonly (number | null)[], measurement: Measurement): number | null => {
  const present = values.filter((value): value is number => value !== null);
  if (measurement === 'count') return present.length;
  if (present.length === 0) return measurement === 'sum' ? 0 : null;
  const sum = present.reduce((total, value) => total + value, 0);
  if (measurement === 'sum') return sum;
  if (measurement === 'avg') return sum / present.length;
  const sorted = [...present].sort((a, b) => a - b);
  return measurement === 'median' ? percentile(sorted, 0.5) : percentile(sorted, 0.95);
};
