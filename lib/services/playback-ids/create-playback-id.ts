import { getDb } from '../../db/client';
import type { PlaybackPolicy } from '../../schemas/asset-settings';
import { type PlaybackIdRecord } from '../../schemas/asset';
import { assetJson } from '../master/master-links';
import { generateId } from '../../utils/ids';
import { assetInclude, findAssetOrThrow } from '../records/asset-record';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';

// POST /video/v1/assets/{id}/playback-ids. The asset's playback_ids change, so subscribers get
// video.asset.updated (as from Mux).
export const createPlaybackId = async ({
  assetId,
  policy,
}: {
  assetId: string;
  policy: PlaybackPolicy;
}): Promise<PlaybackIdRecord> => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  return db.$transaction(async (tx) => {
    const created = await tx.playbackId.create({ data: { id: generateId(), assetId, policy }, select: { id: true, policy: true } });
    const asset = await tx.asset.findUniqueOrThrow({ where: { id: assetId }, include: assetInclude });
    await recordWebhookEvent(tx, { type: 'video.asset.updated', object: { type: 'asset', id: assetId }, data: assetJson(asset) });
    return created;
  });
};
