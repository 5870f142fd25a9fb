import { stat } from 'node:fs/promises';
import { getEnv } from '../../env';
import type { Rung } from '../../media/hls/ladder';
import { renditionCompletePath } from '../../storage/asset-files';
import type { PlaybackPlan } from './playback-plan';
import { isMarkerStored, sharedStore } from '../storage/shared-storage';

const isRungComplete = async (markerPath: string): Promise<boolean> =>
  sharedStore() === null ? (await stat(markerPath).catch(() => null)) !== null : isMarkerStored(markerPath);

// Background rungs (above 1080p) are listed only once every one of their segments exists, so a
// player never picks a rendition that would have to be encoded in 4K in real time.
export const availableRungs = async (assetId: string, plan: PlaybackPlan): Promise<Rung[]> => {
  if (!plan.rungs.some((rung) => rung.isBackground)) return plan.rungs;
  const dataDir = getEnv().dataDir;
  const complete = await Promise.all(
    plan.rungs.map(async (rung) =>
      rung.isBackground ? isRungComplete(renditionCompletePath(dataDir, assetId, rung.name)) : true,
    ),
  );
  return plan.rungs.filter((_, index) => complete[index]);
};
