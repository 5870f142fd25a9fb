// How long to wait before trying again something that keeps failing (a simulcast target that drops,
// an upload to a bucket that is down): 1, 2, 4, 8 and 15 s, then every 30 s.
const BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000];

/** The wait after the `failures`-th failure in a row (1 for the first). */
export const backoffDelayMs = (failures: number): number => BACKOFF_MS[Math.min(Math.max(failures, 1), BACKOFF_MS.length) - 1]!;
