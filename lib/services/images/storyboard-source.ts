import { planStoryboard, type StoryboardLayout } from '../../media/images/storyboard-layout';
import { loadVideoSource, resolveImageTarget, type ImageTarget, type VideoSource } from './image-target';
import type { ImageTargetRequest } from './image-file';

// The sprite and its VTT/JSON must agree tile for tile, so both come from this one layout.
export const resolveStoryboard = async ({
  playbackId,
  query,
  access,
}: ImageTargetRequest): Promise<{ target: ImageTarget; source: VideoSource; layout: StoryboardLayout }> => {
  const target = await resolveImageTarget({ playbackId, access, query });
  const source = await loadVideoSource(target);
  const layout = planStoryboard({ duration: source.duration, frameRate: source.frameRate, display: source.display });
  return { target, source, layout };
};
