import { getDb } from '../../db/client';
import { ApiError } from '../../errors/api-error';
import { notifyJobEnqueued } from '../../jobs/signals';
import { staticRenditionProblems } from '../../schemas/asset-settings';
import type { StaticRenditionRecord, StaticResolution } from '../../schemas/static-rendition';
import { findAssetOrThrow } from '../records/asset-record';
import { insertStaticRenditions, queueStaticRenditionBuilds } from './insert-static-renditions';

// POST /video/v1/assets/{id}/static-renditions. Accepted before the asset is ready too: the file
// is then built once it is (see ingest-asset.ts).
export const createStaticRendition = async ({
  assetId,
  resolution,
  passthrough,
}: {
  assetId: string;
  resolution: StaticResolution;
  passthrough?: string;
}): Promise<StaticRenditionRecord> => {
  const db = getDb();
  const asset = await findAssetOrThrow(db, assetId);
  if (asset.encodingTier === 'baseline') {
    throw new ApiError(
      'invalid_parameters',
      'MP4 renditions are not available for assets with video_quality "basic" (encoding_tier "baseline"); they are made from the asset\'s renditions, which "basic" does not keep at download quality',
    );
  }
  if (asset.mp4Support !== 'none') {
    throw new ApiError('invalid_parameters', `This asset uses mp4_support "${asset.mp4Support}" (deprecated), which cannot be combined with static_renditions; set mp4_support to "none" first`);
  }
  if (asset.status === 'errored') throw new ApiError('failed_request', 'Asset has errored');
  const existing = asset.staticRenditions.filter((file) => !file.viaMp4Support).map((file) => file.resolution);
  const problems = staticRenditionProblems([{ resolution }], existing);
  if (problems.length > 0) throw new ApiError('invalid_parameters', problems);
  const [created] = await db.$transaction(async (tx) => {
    const files = await insertStaticRenditions(tx, { assetId, specs: [{ resolution, passthrough, viaMp4Support: false }] });
    if (asset.status === 'ready') await queueStaticRenditionBuilds(files.map((file) => file.id), tx);
    return files;
  });
  notifyJobEnqueued();
  return created!;
};
