import { describe, expect, test } from 'vitest';
import { buildWebhookEnvelope, serializeWebhookAttempt, webhookTimestamp } from './webhook-envelope';

const event = {
  id: '8d0c1a8e-5d8c-4b43-9b38-2f2f64f2d1b5',
  type: 'video.asset.ready',
  objectType: 'asset',
  objectId: 'jtxBNF6cjZtMTjoxYFKgvvEiXmYcnl5mzfZPpNqUZ1o',
  dataJson: JSON.stringify({ id: 'jtxBNF6cjZtMTjoxYFKgvvEiXmYcnl5mzfZPpNqUZ1o', status: 'ready', created_at: 1649436438 }),
  createdAt: new Date('2022-04-08T16:47:21.000Z'),
};

describe('webhook envelope', () => {
  test('timestamps carry microseconds like Mux', () => {
    expect(webhookTimestamp(new Date('2022-04-08T16:47:21.000Z'))).toBe('2022-04-08T16:47:21.000000Z');
    expect(webhookTimestamp(new Date('2026-11-22T06:00:00.123Z'))).toBe('2026-11-22T06:00:00.123000Z');
  });

  test('a first attempt has the Mux shape with empty attempts and null deprecated fields', () => {
    expect(buildWebhookEnvelope({ event, previousAttempts: [] })).toEqual({
      type: 'video.asset.ready',
      id: event.id,
      created_at: '2022-04-08T16:47:21.000000Z',
      object: { type: 'asset', id: event.objectId },
      environment: { id: 'default', name: 'Keyframe' },
      data: { id: event.objectId, status: 'ready', created_at: 1649436438 },
      attempts: [],
      accessor: null,
      accessor_source: null,
      request_id: null,
    });
  });

  test('earlier attempts are listed with the endpoint address and numeric webhook id', () => {
    const failed = serializeWebhookAttempt(
      {
        id: 'f3a3b0f4-3c55-4a8e-8f0e-0b8e2f8d9a11',
        createdAt: new Date('2022-04-08T16:47:22.500Z'),
        responseStatus: 500,
        responseBody: 'oops',
        responseHeadersJson: JSON.stringify({ 'content-type': 'text/plain' }),
      },
      { address: 'https://example.com/hook', maxAttempts: 33, webhookId: 123456 },
    );
    const refused = serializeWebhookAttempt(
      { id: 'a', createdAt: new Date('2022-04-08T16:47:30.000Z'), responseStatus: null, responseBody: null, responseHeadersJson: null },
      { address: 'https://example.com/hook', maxAttempts: 33, webhookId: 123456 },
    );
    expect(failed).toEqual({
      id: 'f3a3b0f4-3c55-4a8e-8f0e-0b8e2f8d9a11',
      address: 'https://example.com/hook',
      created_at: '2022-04-08T16:47:22.500000Z',
      max_attempts: 33,
      response_body: 'oops',
      response_headers: { 'content-type': 'text/plain' },
      response_status_code: 500,
      webhook_id: 123456,
    });
    expect(refused).toMatchObject({ response_status_code: null, response_body: null, response_headers: {} });
    expect(buildWebhookEnvelope({ event, previousAttempts: [failed, refused] }).attempts).toEqual([failed, refused]);
  });
});
