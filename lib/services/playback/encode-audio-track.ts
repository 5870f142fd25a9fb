import { getDb } from '../../db/client';
import { ensureAudioEncoding } from './audio-track';
import type { PlaybackPlan } from './playback-plan';

// Queues the audio rendition's encode right after the asset is ready, so it is usually complete
// before a viewer needs it. A request that arrives first joins the same encode (and makes it as
// urgent as that viewer needs it).
//
// The job ends once the encode is queued, not once it is done: under load the encoder scheduler
// may keep it waiting behind viewers' segments, and an ingest worker slot must not wait with it.
// Nothing is lost if the process stops first: a viewer's request starts the encode again, and a
// failure is logged and retried by the next request for a segment not written yet.
export const encodeAudioTrack = async ({ assetId }: { assetId: string }): Promise<void> => {
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { planJson: true } });
  if (!asset?.planJson) return;
  await ensureAudioEncoding({ assetId, plan: JSON.parse(asset.planJson) as PlaybackPlan });
};
