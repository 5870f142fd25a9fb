import { planStoryboard, type StoryboardLayout } from '../../media/images/storyboard-layout';
import type { ImageParamSource } from '../../schemas/image-params';
import type { PlaybackAccess } from '../playback/resolve-playback';
import { loadVideoSource, resolveImageTarget, type ImageTarget, type VideoSource } from './image-target';

// The sprite and its VTT/JSON must agree tile for tile, so both come from this one layout.
export const resolveStoryboard = async ({
  playbackId,
  query,
  access,
}: {
  playbackId: string;
  query: ImageParamSource;
  access: PlaybackAccess;
}): Promise<{ target: ImageTarget; source: VideoSource; layout: StoryboardLayout }> => {
  const target = await resolveImageTarget({ playbackId, access, query });
  const source = await loadVideoSource(target);
  const layout = planStoryboard({ duration: source.duration, frameRate: source.frameRate, display: source.display });
  return { target, source, layout };
};
