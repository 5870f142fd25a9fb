import { z } from 'zod';
import { attachmentDisposition } from '@/lib/http/playback/serve-master';
import { withDashboard } from '@/lib/http/with-dashboard';
import { idParam } from '@/lib/schemas/common';
import { readTextTrack } from '@/lib/services/dashboard/read-text-track';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/assets/{ASSET_ID}/tracks/{TRACK_ID}/vtt – a ready text track's WebVTT file as a download
export const GET = withDashboard(
  async ({ params }) => {
    const track = await readTextTrack({ assetId: params.assetId, trackId: params.trackId, format: 'vtt' });
    const fileName = `${track.name}${track.languageCode ? `.${track.languageCode}` : ''}.vtt`;
    return new Response(track.text, {
      headers: {
        'content-type': 'text/vtt; charset=utf-8',
        'content-disposition': attachmentDisposition(fileName),
        'cache-control': 'private, no-store',
      },
    });
  },
  { params: z.object({ assetId: idParam('Asset'), trackId: idParam('Track') }) },
);
