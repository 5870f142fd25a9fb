import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import type { WebhookDeliverySummary } from '../../schemas/webhook-dashboard';

// The most recent deliveries to one endpoint with their latest attempt, for the dashboard.
export const listWebhookDeliveries = async ({
  endpointId,
  limit = 25,
}: {
  endpointId: string;
  limit?: number;
}): Promise<WebhookDeliverySummary[]> => {
  const db = getDb();
  if (!(await db.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { id: true } }))) {
    throw notFound('Webhook endpoint');
  }
  const deliveries = await db.webhookDelivery.findMany({
    where: { endpointId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
    include: {
      event: { select: { type: true, objectId: true } },
      attempts: { orderBy: { createdAt: 'desc' }, take: 1 },
    },
  });
  return deliveries.map((delivery) => {
    const last = delivery.attempts[0];
    return {
      id: delivery.id,
      eventId: delivery.eventId,
      eventType: delivery.event.type,
      objectId: delivery.event.objectId,
      status: delivery.status,
      attemptCount: delivery.attemptCount,
      nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt : null,
      deliveredAt: delivery.deliveredAt,
      createdAt: delivery.createdAt,
      lastAttempt: last
        ? { at: last.createdAt, responseStatus: last.responseStatus, latencyMs: last.latencyMs, error: last.error }
        : null,
    };
  });
};
