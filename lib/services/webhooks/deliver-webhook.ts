import { randomUUID } from 'node:crypto';
import { WEBHOOK_SIGNATURE_HEADER, webhookSignatureHeader } from '../../auth/webhook-signature';
import { getDb } from '../../db/client';
import { retryThroughOutage } from '../../errors/retry-through-outage';
import { buildWebhookEnvelope, serializeWebhookAttempt } from '../../schemas/webhook-envelope';
import { postWebhook } from './post-webhook';
import { releaseWebhookDelivery } from './webhook-delivery-queue';
import { webhookEndpointNumber } from './webhook-endpoint-number';
import { maxWebhookAttempts, nextWebhookAttemptAt } from './webhook-retry-schedule';

export const WEBHOOK_USER_AGENT = 'Keyframe-Webhooks/0.1';

// Well inside the delivery's lease (the attempt timeout + 60 s, webhook-dispatcher.ts).
const RECORD_RETRY_WINDOW_MS = 45_000;

export type WebhookDeliveryOutcome =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'retry'; nextAttemptAt: Date; reason: string }
  | { outcome: 'failed'; reason: string }
  /** Shutdown: back to pending, no attempt counted. */
  | { outcome: 'released' }
  /** The delivery (or its endpoint) was deleted meanwhile. */
  | { outcome: 'gone' };

// One attempt of a claimed delivery: sign and POST the envelope (listing the earlier attempts),
// then record the attempt and the delivery's new state together. A 2xx delivers; anything else
// (3xx included, since redirects are not followed), a network error or a timeout is retried on
// the schedule in webhook-retry-schedule.ts until 24 h after the event.
export const deliverWebhook = async ({
  deliveryId,
  signal,
  timeoutMs,
  retryBaseMs,
}: {
  deliveryId: string;
  signal: AbortSignal;
  timeoutMs: number;
  retryBaseMs: number;
}): Promise<WebhookDeliveryOutcome> => {
  const db = getDb();
  const delivery = await db.webhookDelivery.findUnique({
    where: { id: deliveryId },
    include: { event: true, endpoint: true, attempts: { orderBy: { createdAt: 'asc' } } },
  });
  if (!delivery || delivery.status !== 'sending') return { outcome: 'gone' };
  const { event, endpoint } = delivery;

  const attemptContext = {
    address: endpoint.url,
    maxAttempts: maxWebhookAttempts(retryBaseMs),
    webhookId: webhookEndpointNumber(endpoint.id),
  };
  const envelope = buildWebhookEnvelope({
    event,
    previousAttempts: delivery.attempts.map((attempt) => serializeWebhookAttempt(attempt, attemptContext)),
  });
  const body = JSON.stringify(envelope);
  const startedAt = new Date();
  const result = await postWebhook({
    url: endpoint.url,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      [WEBHOOK_SIGNATURE_HEADER]: webhookSignatureHeader({ body, secret: endpoint.signingSecret, timestampSeconds: startedAt.getTime() / 1000 }),
    },
    timeoutMs,
    signal,
  });

  if (result.kind === 'aborted') {
    await releaseWebhookDelivery(deliveryId);
    return { outcome: 'released' };
  }

  const succeeded = result.kind === 'response' && result.status >= 200 && result.status < 300;
  const failedAttempts = delivery.attemptCount + 1;
  const retryAt = succeeded
    ? null
    : nextWebhookAttemptAt({ eventCreatedAt: event.createdAt, failedAttempts, baseMs: retryBaseMs, now: new Date() });
  const reason = result.kind === 'response' ? `HTTP ${result.status}` : result.error;

  // The receiver has answered: recording that must outlast a database restart, or the lease runs
  // out and the delivery is sent again (a duplicate where it had been delivered).
  const recorded = await retryThroughOutage(() => db.$transaction(async (tx) => {
    const updated = await tx.webhookDelivery.updateMany({
      where: { id: deliveryId, status: 'sending' },
      data: {
        attemptCount: { increment: 1 },
        lockedAt: null,
        ...(succeeded
          ? { status: 'delivered', deliveredAt: new Date() }
          : retryAt
            ? { status: 'pending', nextAttemptAt: retryAt }
            : { status: 'failed' }),
      },
    });
    if (updated.count === 0) return false;
    await tx.webhookAttempt.create({
      data: {
        id: randomUUID(),
        deliveryId,
        createdAt: startedAt,
        latencyMs: result.latencyMs,
        ...(result.kind === 'response'
          ? {
              responseStatus: result.status,
              responseBody: result.body,
              responseHeadersJson: JSON.stringify(result.headers),
            }
          : { error: result.error }),
      },
    });
    return true;
  }), { windowMs: RECORD_RETRY_WINDOW_MS, only: ['database'] });

  if (!recorded) return { outcome: 'gone' };
  if (succeeded && result.kind === 'response') return { outcome: 'delivered', status: result.status };
  return retryAt ? { outcome: 'retry', nextAttemptAt: retryAt, reason } : { outcome: 'failed', reason };
};
