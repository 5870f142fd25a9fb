import { clampToVideo, frameSeekSeconds } from '../../media/images/frame-time';
import { renderThumbnail, type StillFormat } from '../../media/images/render-still';
import { planThumbnail } from '../../media/images/thumbnail-geometry';
import { parseThumbnailParams } from '../../schemas/image-params';
import { grabFrame } from './grab-frames';
import type { ImageFile, ImageRequest } from './image-file';
import { ensureImageFile, imageFileName } from './image-files';
import { loadVideoSource, resolveImageTarget, validParams } from './image-target';

// GET /{PLAYBACK_ID}/thumbnail.{jpg,png,webp}: the frame at `time` (default: the middle; past the
// end: the last frame) from the source, decoded by ffmpeg and transformed and encoded by sharp.
export const getThumbnail = async (request: ImageRequest<StillFormat>): Promise<ImageFile> => {
  const { format } = request;
  const target = await resolveImageTarget(request);
  const params = validParams(parseThumbnailParams(target.params));
  const time = clampToVideo(params.time ?? target.video.duration / 2, target.video);
  // The fit mode only matters when both sides are given; leaving it out otherwise lets equal images share a file.
  const fitMode = params.width !== null && params.height !== null ? params.fitMode : 'preserve';
  // Keyed by the frame (its seek point) rather than the time asked for: times within one frame share a file.
  const fileName = imageFileName('thumbnail', { ...params, time: frameSeekSeconds(time, target.video), fitMode }, format);
  const path = await ensureImageFile({
    assetId: target.assetId,
    fileName,
    generate: async (signal) => {
      const source = await loadVideoSource(target);
      const frame = await grabFrame({ source, time, size: source.display, signal, lane: 'on-demand' });
      const recipe = planThumbnail(source.display, { ...params, fitMode });
      return renderThumbnail({ frame, frameSize: source.display, recipe, format });
    },
  });
  return { path, format, cacheability: target.cacheability, lastModified: target.readyAt };
};
