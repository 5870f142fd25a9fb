import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { listWebhookDeliveries } from '@/lib/services/webhooks-dashboard/list-webhook-deliveries';

export const dynamic = 'force-dynamic';

const iso = (date: Date | null) => date?.toISOString() ?? null;

// GET /api/dashboard/webhooks/{ENDPOINT_ID}/deliveries – recent deliveries with their last attempt
export const GET = withDashboard(
  async ({ params }) =>
    dataResponse(
      (await listWebhookDeliveries({ endpointId: params.endpointId })).map((delivery) => ({
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
      })),
    ),
  { params: z.object({ endpointId: idParam('Webhook endpoint') }) },
);
