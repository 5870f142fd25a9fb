import { getDb } from '../../db/client';
import type { AssetRecord } from '../../schemas/asset';
import { assetInclude } from '../records/asset-record';
import { findLiveStreamOrThrow } from '../live-streams/live-stream-record';

export type LiveStreamRecording = { assetId: string; asset: AssetRecord | null };

// The live stream page's "Recent recordings": the stream's recent_asset_ids, newest first, each
// with its asset, or null once that asset has been deleted (the id stays in recent_asset_ids).
export const getLiveStreamRecordings = async ({ liveStreamId }: { liveStreamId: string }): Promise<LiveStreamRecording[]> => {
  const db = getDb();
  const stream = await findLiveStreamOrThrow(db, liveStreamId);
  const assetIds = (JSON.parse(stream.recentAssetIdsJson) as string[]).toReversed();
  if (assetIds.length === 0) return [];
  const assets = await db.asset.findMany({ where: { id: { in: assetIds } }, include: assetInclude });
  const byId = new Map(assets.map((asset) => [asset.id, asset]));
  return assetIds.map((assetId) => ({ assetId, asset: byId.get(assetId) ?? null }));
};
