import { z } from 'zod';
import { notFound } from '@/lib/http/api-error';
import { noContentResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { deleteWebhookEndpoint } from '@/lib/services/webhooks/delete-webhook-endpoint';

export const dynamic = 'force-dynamic';

// DELETE /api/dashboard/webhooks/{ENDPOINT_ID} – stop sending to this endpoint
export const DELETE = withDashboard(
  async ({ params }) => {
    if ((await deleteWebhookEndpoint({ id: params.endpointId })) === 'not_found') throw notFound('Webhook endpoint');
    return noContentResponse();
  },
  { params: z.object({ endpointId: idParam('Webhook endpoint') }) },
);
