import { getDb } from '../../db/client';
import { notFound } from '../../errors/api-error';
import { staticRenditionSelect } from '../../schemas/static-rendition';
import { findAssetOrThrow } from '../records/asset-record';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { removeStaticRenditionFiles } from './remove-static-rendition-files';
import { staticRenditionEvent } from './static-rendition-events';

// DELETE /video/v1/assets/{id}/static-renditions/{rendition_id}. A build still running finds the
// row gone when it finishes and throws its file away (settle-static-rendition.ts).
export const deleteStaticRendition = async ({ assetId, renditionId }: { assetId: string; renditionId: string }): Promise<void> => {
  const db = getDb();
  await findAssetOrThrow(db, assetId);
  const file = await db.staticRendition.findFirst({ where: { id: renditionId, assetId }, select: staticRenditionSelect });
  if (!file) throw notFound('Static rendition');
  await db.$transaction(async (tx) => {
    const deleted = await tx.staticRendition.deleteMany({ where: { id: renditionId } });
    if (deleted.count === 1 && !file.viaMp4Support) await recordWebhookEvent(tx, staticRenditionEvent('video.asset.static_rendition.deleted', assetId, file));
  });
  await removeStaticRenditionFiles(assetId, [file]);
};
