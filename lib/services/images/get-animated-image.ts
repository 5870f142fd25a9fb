import { ApiError } from '../../errors/api-error';
import { buildAnimatedArgs, type AnimatedFormat } from '../../media/images/image-args';
import { lastFrameTime } from '../../media/images/frame-time';
import { planAnimatedSize } from '../../media/images/thumbnail-geometry';
import { ANIMATED_MAX_SIDE, parseAnimatedParams } from '../../schemas/image-params';
import type { ImageFile, ImageRequest } from './image-file';
import { ensureImageFile, imageFileName } from './image-files';
import { loadVideoSource, resolveImageTarget, validParams } from './image-target';
import { runImageFfmpeg } from './run-image-ffmpeg';

const DEFAULT_WIDTH = 320;

// GET /{PLAYBACK_ID}/animated.{gif,webp}: [start, end) of the source at `fps`, 320 px wide by
// default, made by ffmpeg (a palette per clip for GIF, libwebp for WebP). An `end` past the video
// is cut at its end; a `start` past it is a 400.
export const getAnimatedImage = async (request: ImageRequest<AnimatedFormat>): Promise<ImageFile> => {
  const { format } = request;
  const target = await resolveImageTarget(request);
  const params = validParams(parseAnimatedParams(target.params));
  const lastFrame = lastFrameTime(target.video);
  if (params.start > lastFrame) {
    throw new ApiError('invalid_parameters', `start must be before the end of the video (${target.video.duration} s)`);
  }
  const end = Math.min(params.end, target.video.duration);
  const fileName = imageFileName('animated', { ...params, end }, format);
  const path = await ensureImageFile({
    assetId: target.assetId,
    fileName,
    generate: async (signal) => {
      const source = await loadVideoSource(target);
      const size = planAnimatedSize(source.display, { width: params.width, height: params.height, defaultWidth: DEFAULT_WIDTH, maxSide: ANIMATED_MAX_SIDE });
      const args = buildAnimatedArgs({ inputPath: source.path, startSeconds: params.start, durationSeconds: end - params.start, fps: params.fps, size, format, overlays: source.overlays, sourceColour: source.sourceColour });
      const image = await runImageFfmpeg({ args, signal, lane: 'on-demand' });
      if (image.length === 0) throw new Error(`ffmpeg made an empty ${format} from ${params.start}–${end} s`);
      return image;
    },
  });
  return { path, format, cacheability: target.cacheability, lastModified: target.readyAt };
};
