import { getDb } from '../../db/client';
import { ApiError, notFound } from '../../errors/api-error';
import { notifyWebhookRecorded } from '../webhooks/webhook-signals';

// "Resend" from the dashboard: the delivery goes back to `pending`, due now, and the dispatcher
// (lib/worker/webhook-dispatcher.ts) is woken to send it. Its attempts so far are kept, so the
// dashboard still shows the history; if the new attempt fails, the usual retry schedule (bounded
// by 24 h after the event) decides whether another one follows.
export const resendWebhookDelivery = async ({ endpointId, deliveryId }: { endpointId: string; deliveryId: string }) => {
  const db = getDb();
  const outcome = await db.$transaction(async (tx) => {
    const delivery = await tx.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId } });
    if (!delivery) throw notFound('Webhook delivery');
    if (delivery.status === 'sending') throw new ApiError('conflict', 'This delivery is being sent right now');
    return tx.webhookDelivery.update({
      where: { id: deliveryId },
      data: { status: 'pending', nextAttemptAt: new Date(), lockedAt: null },
    });
  });
  notifyWebhookRecorded();
  return { id: outcome.id, status: outcome.status };
};
