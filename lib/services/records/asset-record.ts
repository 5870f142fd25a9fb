import type { Db } from '../../db/client';
import { notFound } from '../../errors/api-error';
import type { AssetRecord } from '../../schemas/asset';
import { staticRenditionSelect } from '../../schemas/static-rendition';
import { trackOrderBy, trackSelect } from '../../schemas/track';

// Every asset read includes its playback IDs in creation order, the shape the serializer needs.
export const assetInclude = {
  playbackIds: { orderBy: { createdAt: 'asc' as const }, select: { id: true, policy: true } },
  staticRenditions: { orderBy: { createdAt: 'asc' as const }, select: staticRenditionSelect },
  tracks: { orderBy: trackOrderBy, select: trackSelect },
};

export const findAssetOrThrow = async (db: Db, assetId: string): Promise<AssetRecord> => {
  const asset = await db.asset.findUnique({ where: { id: assetId }, include: assetInclude });
  if (!asset) throw notFound('Asset');
  return asset;
};
