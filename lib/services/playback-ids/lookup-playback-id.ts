import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';

// GET /video/v1/playback-ids/{playback_id}: which asset a playback ID belongs to.
export const lookupPlaybackId = async ({ playbackId }: { playbackId: string }) => {
  const found = await getDb().playbackId.findUnique({ where: { id: playbackId } });
  if (!found) throw notFound('Playback ID');
  return { id: found.id, policy: found.policy, object: { type: 'asset' as const, id: found.assetId } };
};
