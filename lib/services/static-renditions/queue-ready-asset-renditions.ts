import { getDb } from '../../db/client';
import { queueStaticRenditionBuilds } from './insert-static-renditions';

/**
 * Queues the files requested before the asset was ready (at creation, or by a POST meanwhile), once
 * it is ready or has errored (their jobs then record them errored).
 */
export const queueReadyAssetRenditions = async (assetId: string): Promise<number> => {
  const waiting = await getDb().staticRendition.findMany({ where: { assetId, status: 'preparing' }, select: { id: true } });
  await queueStaticRenditionBuilds(waiting.map((file) => file.id));
  return waiting.length;
};
