import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import { assetJson } from '../master/master-links';
import { assetInclude, findAssetOrThrow } from '../records/asset-record';
import { forgetPlaybackId } from '../playback/playback-records';
import { tellOtherNodes } from '../../coordination/tell-other-nodes';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';

// DELETE /video/v1/assets/{id}/playback-ids/{playback_id}; reported as video.asset.updated.
export const deletePlaybackId = async ({ assetId, playbackId }: { assetId: string; playbackId: string }): Promise<void> => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  const deleted = await db.$transaction(async (tx) => {
    const result = await tx.playbackId.deleteMany({ where: { id: playbackId, assetId } });
    if (result.count === 0) return false;
    const asset = await tx.asset.findUniqueOrThrow({ where: { id: assetId }, include: assetInclude });
    await recordWebhookEvent(tx, { type: 'video.asset.updated', object: { type: 'asset', id: assetId }, data: assetJson(asset) });
    return true;
  });
  await forgetPlaybackId(playbackId);
  if (deleted) await tellOtherNodes({ type: 'playback-id-deleted', playbackId });
  if (!deleted) throw notFound('Playback ID');
};
