import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { serializeLiveStream } from '@/lib/schemas/live-stream';
import { liveIngest } from '@/lib/services/dashboard/live-ingest';
import { deleteLiveStream } from '@/lib/services/live-streams/delete-live-stream';
import { getLiveStream } from '@/lib/services/live-streams/get-live-stream';

export const dynamic = 'force-dynamic';

const params = z.object({ liveStreamId: idParam('Live stream') });

// GET /api/dashboard/live-streams/{LIVE_STREAM_ID} – the stream as the API returns it, plus where to
// publish to (rtmp_url, rtmps_url, srt_url) and where its playlists are served (stream_url); polled while the page is open
export const GET = withDashboard(
  async ({ params }) => {
    const { rtmpUrl, rtmpEnabled, rtmpsUrl, rtmpsSelfSigned, srtUrl, streamUrl } = liveIngest();
    return dataResponse(serializeLiveStream(await getLiveStream(params)), 200, {
      ingest: { rtmp_url: rtmpUrl, rtmp_enabled: rtmpEnabled, rtmps_url: rtmpsUrl, rtmps_self_signed: rtmpsSelfSigned, srt_url: srtUrl, stream_url: streamUrl },
    });
  },
  { params },
);

// DELETE /api/dashboard/live-streams/{LIVE_STREAM_ID} – ends a running broadcast, then deletes the stream
export const DELETE = withDashboard(
  async ({ params }) => {
    await deleteLiveStream(params);
    return noContentResponse();
  },
  { params },
);
