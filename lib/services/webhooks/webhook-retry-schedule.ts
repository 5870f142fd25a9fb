// When a failed webhook delivery is tried again. Like Mux: retried with a growing delay for 24 hours
// after the event, then given up. The n-th retry waits base·2^(n-1) (base = WEBHOOK_RETRY_BASE_SECONDS,
// 5 s by default), capped at one hour, so a receiver that is down for a while is not hammered and
// one that comes back is reached again within the hour. No jitter: volumes are small, and a fixed
// schedule is easy to explain and to test.

export const WEBHOOK_RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_WEBHOOK_RETRY_DELAY_MS = 60 * 60 * 1000;

/** Delay before the next attempt, after `failedAttempts` (≥ 1) attempts have failed. */
export const webhookRetryDelayMs = (failedAttempts: number, baseMs: number): number =>
  Math.min(MAX_WEBHOOK_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, failedAttempts - 1));

/** When to try again, or `null` once the next attempt would fall outside the 24-hour window. */
export const nextWebhookAttemptAt = ({
  eventCreatedAt,
  failedAttempts,
  baseMs,
  now,
}: {
  eventCreatedAt: Date;
  failedAttempts: number;
  baseMs: number;
  now: Date;
}): Date | null => {
  const next = now.getTime() + webhookRetryDelayMs(failedAttempts, baseMs);
  return next > eventCreatedAt.getTime() + WEBHOOK_RETRY_WINDOW_MS ? null : new Date(next);
};

/**
 * How many attempts the schedule allows (first try included) when every attempt fails at once;
 * reported as `max_attempts` in the envelope's `attempts` list. 33 with the default 5 s base.
 */
export const maxWebhookAttempts = (baseMs: number): number => {
  let attempts = 1;
  let elapsed = 0;
  for (;;) {
    elapsed += webhookRetryDelayMs(attempts, baseMs);
    if (elapsed > WEBHOOK_RETRY_WINDOW_MS) return attempts;
    attempts += 1;
  }
};
