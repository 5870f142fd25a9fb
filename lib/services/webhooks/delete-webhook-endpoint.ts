import { getDb } from '../../db/client';

// Removes an endpoint with its deliveries and their attempts, in one transaction, so nothing more is
// sent to it (a request already in flight finishes, but its outcome is dropped). Child rows are
// deleted explicitly rather than through foreign-key cascades, which SQLite only honours when the
// connection enables them. Events stay: other endpoints may still be delivering them.
export const deleteWebhookEndpoint = async ({ id }: { id: string }): Promise<'deleted' | 'not_found'> =>
  getDb().$transaction(async (tx) => {
    const endpoint = await tx.webhookEndpoint.findUnique({ where: { id }, select: { id: true } });
    if (!endpoint) return 'not_found';
    await tx.webhookAttempt.deleteMany({ where: { delivery: { endpointId: id } } });
    await tx.webhookDelivery.deleteMany({ where: { endpointId: id } });
    await tx.webhookEndpoint.delete({ where: { id } });
    return 'deleted';
  });
