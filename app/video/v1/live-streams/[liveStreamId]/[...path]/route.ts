import { z } from 'zod';
import { ApiError, UNKNOWN_ROUTE_MESSAGE } from '@/lib/http/api-error';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';

export const dynamic = 'force-dynamic';

// Any other path under a live stream: a JSON 404 in the API's error shape, not the framework's page.
const notFound = withApi(
  async () => {
    throw new ApiError('not_found', UNKNOWN_ROUTE_MESSAGE);
  },
  { params: z.object({ liveStreamId: idParam('Live stream'), path: z.array(z.string()) }) },
);

export const { GET, POST, PUT, PATCH, DELETE } = { GET: notFound, POST: notFound, PUT: notFound, PATCH: notFound, DELETE: notFound };
