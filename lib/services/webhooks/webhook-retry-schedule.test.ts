import { describe, expect, test } from 'vitest';
import {
  MAX_WEBHOOK_RETRY_DELAY_MS,
  maxWebhookAttempts,
  nextWebhookAttemptAt,
  WEBHOOK_RETRY_WINDOW_MS,
  webhookRetryDelayMs,
} from './webhook-retry-schedule';

describe('webhook retry schedule', () => {
  test('doubles from the base and is capped at one hour', () => {
    const delays = Array.from({ length: 12 }, (_, i) => webhookRetryDelayMs(i + 1, 5_000) / 1000);
    expect(delays).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600]);
    expect(webhookRetryDelayMs(500, 5_000)).toBe(MAX_WEBHOOK_RETRY_DELAY_MS);
    expect(webhookRetryDelayMs(1, 500)).toBe(500);
    expect(webhookRetryDelayMs(2, 500)).toBe(1_000);
  });

  test('schedules the next attempt from now while it falls within 24 h of the event', () => {
    const eventCreatedAt = new Date('2026-01-01T00:00:00Z');
    const now = new Date(eventCreatedAt.getTime() + 60_000);
    expect(nextWebhookAttemptAt({ eventCreatedAt, failedAttempts: 3, baseMs: 5_000, now })).toEqual(new Date(now.getTime() + 20_000));

    const late = new Date(eventCreatedAt.getTime() + WEBHOOK_RETRY_WINDOW_MS - 30 * 60_000);
    expect(nextWebhookAttemptAt({ eventCreatedAt, failedAttempts: 20, baseMs: 5_000, now: late })).toBeNull();
    expect(nextWebhookAttemptAt({ eventCreatedAt, failedAttempts: 1, baseMs: 5_000, now: late })).toEqual(new Date(late.getTime() + 5_000));
  });

  test('max attempts match what the schedule allows in 24 h', () => {
    // 10 doubling retries (5 s … 2560 s, 5115 s in all), then hourly ones in the remaining 22.6 h.
    expect(maxWebhookAttempts(5_000)).toBe(1 + 10 + 22);
    expect(maxWebhookAttempts(3_600_000)).toBe(1 + 24);
    expect(maxWebhookAttempts(500)).toBeGreaterThan(maxWebhookAttempts(5_000));
  });
});
