import { notFound } from '@/lib/http/api-error';
import { corsPreflight, playbackAccess, playlistResponse, withPlayback } from '@/lib/http/with-playback';
import { getMultivariantPlaylist } from '@/lib/services/playback/get-multivariant-playlist';

export const dynamic = 'force-dynamic';

// GET /{PLAYBACK_ID}.m3u8 – the multivariant playlist (max_resolution / min_resolution filter the ladder)
export const GET = withPlayback(async ({ request, params }) => {
  const name = String(params.playback ?? '');
  if (!name.endsWith('.m3u8')) throw notFound('Resource');
  const query = new URL(request.url).searchParams;
  return playlistResponse(
    await getMultivariantPlaylist({
      playbackId: name.slice(0, -'.m3u8'.length),
      maxResolution: query.get('max_resolution') ?? undefined,
      minResolution: query.get('min_resolution') ?? undefined,
      access: playbackAccess(request, 'v'),
    }),
  );
});

export const OPTIONS = corsPreflight;
