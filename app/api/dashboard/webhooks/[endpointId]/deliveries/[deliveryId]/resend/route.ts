import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { resendWebhookDelivery } from '@/lib/services/webhooks-dashboard/resend-webhook-delivery';

export const dynamic = 'force-dynamic';

// POST /api/dashboard/webhooks/{ENDPOINT_ID}/deliveries/{DELIVERY_ID}/resend – send it again now
export const POST = withDashboard(
  async ({ params }) => dataResponse(await resendWebhookDelivery({ endpointId: params.endpointId, deliveryId: params.deliveryId })),
  { params: z.object({ endpointId: idParam('Webhook endpoint'), deliveryId: idParam('Webhook delivery') }) },
);
