import { getDb } from '../../db/client';
import { ensureAudioEncoding } from './audio-track';
import type { PlaybackPlan } from './playback-plan';

// Encodes the audio rendition right after the asset is ready, so it is usually complete before a
// viewer needs it. A request that arrives first joins the same encode.
export const encodeAudioTrack = async ({ assetId }: { assetId: string }): Promise<void> => {
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { planJson: true } });
  if (!asset?.planJson) return;
  const encode = await ensureAudioEncoding({ assetId, plan: JSON.parse(asset.planJson) as PlaybackPlan });
  await encode?.done;
};
