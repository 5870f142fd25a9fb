import { z } from 'zod';
import { ApiError } from '@/lib/http/api-error';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { serializeWebhookEndpoint } from '@/lib/schemas/webhook-dashboard';
import { createWebhookEndpoint, InvalidWebhookUrlError } from '@/lib/services/webhooks/create-webhook-endpoint';
import { listWebhookEndpoints } from '@/lib/services/webhooks/list-webhook-endpoints';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/webhooks – endpoints with their signing secrets and delivery counts
export const GET = withDashboard(async () => dataResponse((await listWebhookEndpoints()).map(serializeWebhookEndpoint)));

// POST /api/dashboard/webhooks – add an endpoint that receives every event from now on
export const POST = withDashboard(
  async ({ body }) => {
    try {
      const endpoint = await createWebhookEndpoint({ url: body.url.trim() });
      return dataResponse(serializeWebhookEndpoint(endpoint), 201);
    } catch (error) {
      if (error instanceof InvalidWebhookUrlError) throw new ApiError('invalid_parameters', `url: ${error.message}`);
      throw error;
    }
  },
  { body: z.object({ url: z.string().min(1, { error: 'must not be empty' }) }) },
);
