// Webhook endpoints and their deliveries as the dashboard's JSON routes and
// `keyframe webhooks list --json` show them.
const iso = (date: Date | null) => date?.toISOString() ?? null;

type DeliveryCounts = { pending: number; delivered: number; failed: number };

export const serializeWebhookEndpoint = (endpoint: { id: string; url: string; secret: string; createdAt: Date; deliveries?: DeliveryCounts }) => ({
  id: endpoint.id,
  url: endpoint.url,
  secret: endpoint.secret,
  created_at: endpoint.createdAt.toISOString(),
  ...(endpoint.deliveries && { deliveries: endpoint.deliveries }),
});

export type WebhookEndpointJson = ReturnType<typeof serializeWebhookEndpoint>;

/** A delivery with its latest attempt, as lib/services/webhooks-dashboard/list-webhook-deliveries.ts reads it. */
export type WebhookDeliverySummary = {
  id: string;
  eventId: string;
  eventType: string;
  objectId: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
  lastAttempt: { at: Date; responseStatus: number | null; latencyMs: number; error: string | null } | null;
};

export const serializeWebhookDelivery = (delivery: WebhookDeliverySummary) => ({
  id: delivery.id,
  event_id: delivery.eventId,
  event_type: delivery.eventType,
  object_id: delivery.objectId,
  status: delivery.status,
  attempts: delivery.attemptCount,
  next_attempt_at: iso(delivery.nextAttemptAt),
  delivered_at: iso(delivery.deliveredAt),
  created_at: delivery.createdAt.toISOString(),
  last_attempt: delivery.lastAttempt && {
    at: delivery.lastAttempt.at.toISOString(),
    response_status: delivery.lastAttempt.responseStatus,
    latency_ms: delivery.lastAttempt.latencyMs,
    error: delivery.lastAttempt.error,
  },
});

export type WebhookDeliveryJson = ReturnType<typeof serializeWebhookDelivery>;
