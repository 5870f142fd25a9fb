import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { liveStaticRenditionsSchema, serializeLiveStream } from '@/lib/schemas/live-stream';
import { deleteNewAssetStaticRenditions, setNewAssetStaticRenditions } from '@/lib/services/live-streams/new-asset-static-renditions';

export const dynamic = 'force-dynamic';

const params = z.object({ liveStreamId: idParam('Live stream') });

// PUT /video/v1/live-streams/{LIVE_STREAM_ID}/new-asset-settings/static-renditions – the MP4s every recording gets (the whole list)
export const PUT = withApi(
  async ({ params, body }) =>
    dataResponse(serializeLiveStream(await setNewAssetStaticRenditions({ liveStreamId: params.liveStreamId, staticRenditions: body.static_renditions }))),
  { params, body: liveStaticRenditionsSchema },
);

// DELETE /video/v1/live-streams/{LIVE_STREAM_ID}/new-asset-settings/static-renditions – recordings get no MP4s
export const DELETE = withApi(
  async ({ params }) => {
    await deleteNewAssetStaticRenditions(params);
    return noContentResponse();
  },
  { params },
);
