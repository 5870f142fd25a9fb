import { getEnv } from '../../env';
import type { OverlayImage } from '../../media/overlay/overlay-filter';
import { overlayImagePath } from '../../storage/asset-files';
import { isStoredHereOrShared } from '../storage/shared-storage';
import type { PlaybackPlan } from './playback-plan';

/**
 * The asset's watermarks as encodes read them, each image on this node's disk: with S3 storage a
 * node that did not ingest the asset copies them from the bucket first (once; then they are here).
 */
export const overlayImages = (assetId: string, plan: Pick<PlaybackPlan, 'overlays'>): Promise<OverlayImage[]> =>
  Promise.all(
    (plan.overlays ?? []).map(async ({ width, height, settings }, index) => {
      const imagePath = overlayImagePath(getEnv().dataDir, assetId, index);
      if (!(await isStoredHereOrShared(imagePath))) throw new Error(`watermark ${index} of asset ${assetId} is not stored`);
      return { path: imagePath, width, height, settings };
    }),
  );
