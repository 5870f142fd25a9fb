import { getDb } from '../../db/client';
import { ApiError, invalidId, notFound } from '../../http/api-error';
import { isWellFormedId } from '../../utils/ids';
import type { PlaybackPlan } from './playback-plan';

export type PlaybackTarget = { assetId: string; plan: PlaybackPlan };

// Maps a playback ID to a playable asset, with Mux's delivery status codes: malformed 400, unknown
// or deleted 404, signed 403 (tokens are not supported yet, so signed IDs are never served), not
// ready or errored 412.
export const resolvePlayback = async ({ playbackId }: { playbackId: string }): Promise<PlaybackTarget> => {
  if (!isWellFormedId(playbackId)) throw invalidId('Playback', playbackId);
  const found = await getDb().playbackId.findUnique({
    where: { id: playbackId },
    select: { policy: true, asset: { select: { id: true, status: true, planJson: true } } },
  });
  if (!found) throw notFound('Playback ID');
  if (found.policy !== 'public') {
    throw new ApiError('forbidden', 'This playback ID is signed and needs a token; signed playback is not supported yet');
  }
  if (found.asset.status === 'errored') throw new ApiError('failed_request', 'Asset has errored and cannot be played');
  if (found.asset.status !== 'ready' || !found.asset.planJson) throw new ApiError('failed_request', 'Asset is not ready');
  return { assetId: found.asset.id, plan: JSON.parse(found.asset.planJson) as PlaybackPlan };
};
