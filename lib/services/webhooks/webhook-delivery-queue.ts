import { getDb } from '../../db/client';

// The delivery outbox as a queue: a row is claimed with a conditional update (pending → sending),
// like lib/jobs/queue.ts, so it is sent by one dispatcher at a time.

export type ClaimedWebhookDelivery = { id: string; endpointId: string };

/** The due delivery that has waited longest, skipping endpoints that already have enough in flight. */
export const claimDueWebhookDelivery = async ({
  excludeEndpointIds,
}: {
  excludeEndpointIds: string[];
}): Promise<ClaimedWebhookDelivery | null> => {
  const db = getDb();
  for (let tries = 0; tries < 5; tries++) {
    const candidate = await db.webhookDelivery.findFirst({
      where: {
        status: 'pending',
        nextAttemptAt: { lte: new Date() },
        ...(excludeEndpointIds.length > 0 && { endpointId: { notIn: excludeEndpointIds } }),
      },
      orderBy: [{ nextAttemptAt: 'asc' }, { createdAt: 'asc' }],
      select: { id: true, endpointId: true },
    });
    if (!candidate) return null;
    const claimed = await db.webhookDelivery.updateMany({
      where: { id: candidate.id, status: 'pending' },
      data: { status: 'sending', lockedAt: new Date() },
    });
    if (claimed.count === 1) return candidate;
  }
  return null;
};

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
