import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import { findLivePlaybackId } from '../records/find-live-stream';

// GET /video/v1/playback-ids/{playback_id}: which asset or live stream a playback ID belongs to.
export const lookupPlaybackId = async ({ playbackId }: { playbackId: string }) => {
  const found = await getDb().playbackId.findUnique({ where: { id: playbackId } });
  if (found) return { id: found.id, policy: found.policy, object: { type: 'asset' as const, id: found.assetId } };
  const live = await findLivePlaybackId(playbackId);
  if (live) return { id: live.id, policy: live.policy, object: { type: 'live_stream' as const, id: live.liveStreamId } };
  throw notFound('Playback ID');
};
