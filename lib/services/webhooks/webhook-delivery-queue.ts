import { getDb } from '../../db/client';

// The delivery outbox as a queue: lib/db/claim-webhook-delivery.ts claims a row (pending → sending),
// like job claims, so it is sent by one dispatcher at a time.

export { claimDueWebhookDelivery, type ClaimedWebhookDelivery } from '../../db/claim-webhook-delivery';

/** Puts a claimed delivery back without counting an attempt (shutdown aborted the request). */
export const releaseWebhookDelivery = async (id: string): Promise<void> => {
  await getDb().webhookDelivery.updateMany({ where: { id, status: 'sending' }, data: { status: 'pending', lockedAt: null } });
};

// The in-process dispatcher is the only sender for this database, so anything still marked
// `sending` at start was interrupted (crash, kill -9); it is sent again (receivers dedupe on the
// event id, as Mux asks them to).
export const recoverInterruptedWebhookDeliveries = async (): Promise<number> => {
  const result = await getDb().webhookDelivery.updateMany({
    where: { status: 'sending' },
    data: { status: 'pending', lockedAt: null },
  });
  return result.count;
};
