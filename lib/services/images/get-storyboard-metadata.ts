import { getEnv } from '../../env';
import { storyboardJson, storyboardVtt } from '../../media/images/storyboard-layout';
import { parseStoryboardParams } from '../../schemas/image-params';
import { warmStoryboardSprite } from './get-storyboard-image';
import type { StoryboardText, ImageRequest } from './image-file';
import { validParams } from './image-target';
import { resolveStoryboard } from './storyboard-source';

// GET /{PLAYBACK_ID}/storyboard.vtt and storyboard.json: where each tile of the sprite is and when
// it applies. Cheap text made from the layout, so it is not stored. The sprite URL is absolute, on
// STREAM_URL, in the `format` asked for (jpg by default); for a signed playback ID it carries the
// same token, which the sprite request needs too (same `s` audience).
export const getStoryboardMetadata = async (request: ImageRequest<StoryboardText['format']>): Promise<StoryboardText> => {
  const { format } = request;
  const storyboard = await resolveStoryboard(request);
  const { target, layout } = storyboard;
  const { format: imageFormat } = validParams(parseStoryboardParams(target.params));
  warmStoryboardSprite(storyboard);
  const tokenQuery = target.signed && target.token ? `?token=${encodeURIComponent(target.token)}` : '';
  const imageUrl = `${getEnv().streamUrl}/${target.playbackId}/storyboard.${imageFormat}${tokenQuery}`;
  const text = format === 'vtt' ? storyboardVtt(layout, imageUrl) : JSON.stringify(storyboardJson(layout, imageUrl));
  return { text, format, cacheability: target.cacheability, lastModified: target.readyAt };
};
