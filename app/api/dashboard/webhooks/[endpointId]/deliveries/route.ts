import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { serializeWebhookDelivery } from '@/lib/schemas/webhook-dashboard';
import { listWebhookDeliveries } from '@/lib/services/webhooks-dashboard/list-webhook-deliveries';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/webhooks/{ENDPOINT_ID}/deliveries – recent deliveries with their last attempt
export const GET = withDashboard(
  async ({ params }) => dataResponse((await listWebhookDeliveries({ endpointId: params.endpointId })).map(serializeWebhookDelivery)),
  { params: z.object({ endpointId: idParam('Webhook endpoint') }) },
);
