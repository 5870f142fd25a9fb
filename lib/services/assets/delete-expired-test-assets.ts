import { getDb } from '../../db/client';
import { deleteAsset } from './delete-asset';

const TEST_ASSET_LIFETIME_MS = 24 * 60 * 60 * 1000;

// Test assets are deleted 24 hours after creation, as Mux does.
export const deleteExpiredTestAssets = async (): Promise<number> => {
  const expired = await getDb().asset.findMany({
    where: { test: true, createdAt: { lt: new Date(Date.now() - TEST_ASSET_LIFETIME_MS) } },
    select: { id: true },
    take: 500,
  });
  for (const { id } of expired) await deleteAsset({ assetId: id });
  return expired.length;
};
