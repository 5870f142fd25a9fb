import { notFound } from '@/lib/http/api-error';
import { serveImage } from '@/lib/http/image-routes';
import { corsPreflight, mediaFileResponse, playbackAccess, playlistResponse, withPlayback } from '@/lib/http/with-playback';
import { getRenditionFile } from '@/lib/services/playback/get-rendition-file';
import { getRenditionPlaylist } from '@/lib/services/playback/get-rendition-playlist';

export const dynamic = 'force-dynamic';

// GET /{PLAYBACK_ID}/{rendition}.m3u8            – rendition playlist
// GET /{PLAYBACK_ID}/{rendition}/init.mp4|{n}.m4s – init segment / media segment (encoded on first request)
// GET /{PLAYBACK_ID}/thumbnail.{jpg,png,webp}, animated.{gif,webp}, storyboard.{jpg,png,webp,vtt,json} – images
export const GET = withPlayback(async ({ request, params }) => {
  const playbackId = String(params.playback ?? '');
  const path = Array.isArray(params.path) ? params.path : [];
  const [first, second, ...rest] = path;
  if (first?.endsWith('.m3u8') && second === undefined) {
    const rendition = first.slice(0, -'.m3u8'.length);
    return playlistResponse(await getRenditionPlaylist({ playbackId, rendition, access: playbackAccess(request, 'v') }));
  }
  if (first && second && rest.length === 0) {
    const access = playbackAccess(request, 'v');
    const file = await getRenditionFile({ playbackId, rendition: first, file: second, access, viewer: request.signal });
    return mediaFileResponse(file, request);
  }
  const image = first && second === undefined ? await serveImage({ playbackId, fileName: first, request }) : null;
  if (image) return image;
  throw notFound('Resource');
});

export const OPTIONS = corsPreflight;
