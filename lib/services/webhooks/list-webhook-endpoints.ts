import { getDb } from '../../db/client';

export type WebhookEndpointSummary = {
  id: string;
  url: string;
  secret: string;
  createdAt: Date;
  deliveries: { pending: number; delivered: number; failed: number };
};

// Endpoints with their secrets (whoever can run this can read DATA_DIR, where they are stored
// anyway) and how their deliveries stand, newest first.
export const listWebhookEndpoints = async (): Promise<WebhookEndpointSummary[]> => {
  const db = getDb();
  const [endpoints, counts] = await Promise.all([
    db.webhookEndpoint.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    db.webhookDelivery.groupBy({ by: ['endpointId', 'status'], _count: { _all: true } }),
  ]);
  return endpoints.map((endpoint) => {
    const count = (...statuses: string[]) =>
      counts
        .filter((row) => row.endpointId === endpoint.id && statuses.includes(row.status))
        .reduce((sum, row) => sum + row._count._all, 0);
    return {
      id: endpoint.id,
      url: endpoint.url,
      secret: endpoint.signingSecret,
      createdAt: endpoint.createdAt,
      deliveries: { pending: count('pending', 'sending'), delivered: count('delivered'), failed: count('failed') },
    };
  });
};
