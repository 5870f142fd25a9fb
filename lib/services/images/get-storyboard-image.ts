import { readFile } from 'node:fs/promises';
import { getLogger } from '../../log';
import { composeSprite, encodeStill, type StillFormat } from '../../media/images/render-still';
import type { StoryboardLayout } from '../../media/images/storyboard-layout';
import { grabStoryboardTiles } from './grab-frames';
import type { ImageFile, ImageRequest } from './image-file';
import { ensureImageFile, imageFileName } from './image-files';
import type { ImageTarget, VideoSource } from './image-target';
import { resolveStoryboard } from './storyboard-source';

// The tiles are decoded once into a lossless PNG sprite; JPEG and WebP are encoded from it, so
// asking for a second format costs an encode, not another pass over the video.
const MASTER_FORMAT: StillFormat = 'png';

type Storyboard = { target: ImageTarget; source: VideoSource; layout: StoryboardLayout };

// Named after the layout, so a sprite on disk always matches the VTT served with it.
const spriteFileName = (layout: StoryboardLayout, format: StillFormat) =>
  imageFileName('storyboard', { tile: layout.tile, columns: layout.columns, tiles: layout.tiles.length, duration: layout.duration }, format);

const ensureMasterSprite = ({ target, source, layout }: Storyboard): Promise<string> =>
  ensureImageFile({
    assetId: target.assetId,
    fileName: spriteFileName(layout, MASTER_FORMAT),
    generate: async (signal) => composeSprite({ tiles: await grabStoryboardTiles({ source, layout, signal }), layout }),
  });

// Players fetch storyboard.vtt when the page loads but the sprite only on the first hover; starting
// the sprite then (at storyboard priority) means a long video's tiles are usually ready in time.
export const warmStoryboardSprite = (storyboard: Storyboard): void => {
  ensureMasterSprite(storyboard).catch((error: unknown) =>
    getLogger().debug({ err: error, assetId: storyboard.target.assetId }, 'storyboard sprite warm-up did not complete'),
  );
};

// GET /{PLAYBACK_ID}/storyboard.{jpg,png,webp}: every tile of the layout in one sprite.
export const getStoryboardImage = async (request: ImageRequest<StillFormat>): Promise<ImageFile> => {
  const { format } = request;
  const storyboard = await resolveStoryboard(request);
  const master = await ensureMasterSprite(storyboard);
  const { cacheability, readyAt: lastModified } = storyboard.target;
  if (format === MASTER_FORMAT) return { path: master, format, cacheability, lastModified };
  const path = await ensureImageFile({
    assetId: storyboard.target.assetId,
    fileName: spriteFileName(storyboard.layout, format),
    generate: async () => encodeStill(await readFile(master), format),
  });
  return { path, format, cacheability, lastModified };
};
