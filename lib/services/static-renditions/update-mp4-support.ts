import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import { notifyJobEnqueued } from '../../jobs/signals';
import type { AssetRecord } from '../../schemas/asset';
import { assetJson } from '../master/master-links';
import { staticRenditionName, type Mp4Support } from '../../schemas/static-rendition';
import { assetInclude, findAssetOrThrow } from '../records/asset-record';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { insertStaticRenditions, legacySpecs, queueStaticRenditionBuilds } from './insert-static-renditions';
import { removeStaticRenditionFiles } from './remove-static-rendition-files';

// PUT /video/v1/assets/{id}/mp4-support (the legacy API). Files the new value still wants are
// kept as they are; the others are deleted, and the missing ones built. Asset-level webhooks:
// static_renditions.preparing when files are to be built, .deleted when "none" removed them.
export const updateMp4Support = async ({ assetId, mp4Support }: { assetId: string; mp4Support: Mp4Support }): Promise<AssetRecord> => {
  const db = getDb();
  const asset = await findAssetOrThrow(db, assetId);
  if (asset.status !== 'ready') throw new ApiError('failed_request', 'Asset is not ready');
  if (mp4Support !== 'none' && asset.encodingTier === 'baseline') {
    throw new ApiError('invalid_parameters', 'mp4_support: MP4 renditions are not available with video_quality "basic" (encoding_tier "baseline"); use video_quality "plus"');
  }
  if (mp4Support !== 'none' && asset.staticRenditions.some((file) => !file.viaMp4Support)) {
    throw new ApiError('invalid_parameters', 'mp4_support cannot be used on an asset that has static_renditions; use the static-renditions endpoints');
  }
  const legacy = asset.staticRenditions.filter((file) => file.viaMp4Support);
  const specs = legacySpecs(mp4Support);
  const wanted = new Set(specs.map((spec) => staticRenditionName(spec.resolution)));
  const removed = legacy.filter((file) => !wanted.has(file.name));
  const missing = specs.filter((spec) => !legacy.some((file) => file.name === staticRenditionName(spec.resolution)));
  const updated = await db.$transaction(async (tx) => {
    await tx.staticRendition.deleteMany({ where: { id: { in: removed.map((file) => file.id) } } });
    const created = await insertStaticRenditions(tx, { assetId, specs: missing });
    await queueStaticRenditionBuilds(created.map((file) => file.id), tx);
    const saved = await tx.asset.update({ where: { id: assetId }, data: { mp4Support }, include: assetInclude });
    const event =
      created.length > 0 ? 'video.asset.static_renditions.preparing' : mp4Support === 'none' && removed.length > 0 ? 'video.asset.static_renditions.deleted' : null;
    if (event) await recordWebhookEvent(tx, { type: event, object: { type: 'asset', id: assetId }, data: assetJson(saved) });
    return saved;
  });
  notifyJobEnqueued();
  await removeStaticRenditionFiles(assetId, removed);
  return updated;
};
