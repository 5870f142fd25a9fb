import { isAnimatedFormat, isStillFormat } from '../schemas/image-params';
import { getAnimatedImage } from '../services/images/get-animated-image';
import { getStoryboardImage } from '../services/images/get-storyboard-image';
import { getStoryboardMetadata } from '../services/images/get-storyboard-metadata';
import { getThumbnail } from '../services/images/get-thumbnail';
import { imageResponse, playbackAccess } from './with-playback';

// The image names under a playback ID, each with its token audience: thumbnail (t), animated (g),
// storyboard (s). Returns null for any other name, so the caller can go on dispatching.
export const serveImage = async ({
  playbackId,
  fileName,
  request,
}: {
  playbackId: string;
  fileName: string;
  request: Request;
}): Promise<Response | null> => {
  const match = /^(thumbnail|animated|storyboard)\.([a-z]+)$/.exec(fileName);
  const [, kind, extension = ''] = match ?? [];
  const query = Object.fromEntries(new URL(request.url).searchParams);
  if (kind === 'thumbnail' && isStillFormat(extension)) {
    const access = playbackAccess(request, 't');
    return imageResponse(await getThumbnail({ playbackId, format: extension, query, access }), request);
  }
  if (kind === 'animated' && isAnimatedFormat(extension)) {
    const access = playbackAccess(request, 'g');
    return imageResponse(await getAnimatedImage({ playbackId, format: extension, query, access }), request);
  }
  if (kind === 'storyboard' && isStillFormat(extension)) {
    const access = playbackAccess(request, 's');
    return imageResponse(await getStoryboardImage({ playbackId, format: extension, query, access }), request);
  }
  if (kind === 'storyboard' && (extension === 'vtt' || extension === 'json')) {
    const access = playbackAccess(request, 's');
    return imageResponse(await getStoryboardMetadata({ playbackId, format: extension, query, access }), request);
  }
  return null;
};
