import { expect, test } from 'vitest';
import { serializeWebhookDelivery, serializeWebhookEndpoint } from './webhook-dashboard';

const createdAt = new Date('2026-11-01T10:00:00.000Z');

test('an endpoint lists its delivery counts only when it has them', () => {
  const endpoint = { id: 'e1', url: 'https://example.com/hook', secret: 'sec', createdAt };
  expect(Object.keys(serializeWebhookEndpoint(endpoint))).toStrictEqual(['id', 'url', 'secret', 'created_at']);
  expect(serializeWebhookEndpoint({ ...endpoint, deliveries: { pending: 1, delivered: 2, failed: 0 } }).deliveries).toStrictEqual({ pending: 1, delivered: 2, failed: 0 });
});

test('a delivery with and without an attempt', () => {
  const delivery = {
    id: 'd1',
    eventId: 'ev',
    eventType: 'video.asset.ready',
    objectId: 'a1',
    status: 'pending',
    attemptCount: 0,
    nextAttemptAt: null,
    deliveredAt: null,
    createdAt,
    lastAttempt: null,
  };
  expect(serializeWebhookDelivery(delivery)).toMatchObject({ event_type: 'video.asset.ready', attempts: 0, next_attempt_at: null, last_attempt: null });
  const attempted = serializeWebhookDelivery({ ...delivery, lastAttempt: { at: createdAt, responseStatus: 500, latencyMs: 12, error: null } });
  expect(attempted.last_attempt).toStrictEqual({ at: '2026-11-01T10:00:00.000Z', response_status: 500, latency_ms: 12, error: null });
});
