import type { Prisma } from '../../db/generated/client';
import { enqueueJob } from '../../jobs/queue';
import type { AssetRecord, LiveIngestType } from '../../schemas/asset';
import type { NormalizedAssetSettings, StoredInput } from '../../schemas/asset-settings';
import { assetJson } from '../master/master-links';
import { generateId } from '../../utils/ids';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { announceStaticRenditions, insertStaticRenditions, staticRenditionSpecs } from '../static-renditions/insert-static-renditions';
import { assetInclude } from '../records/asset-record';

export type IngestType = 'on_demand_url' | 'on_demand_direct_upload' | 'on_demand_clip' | LiveIngestType;

// Records a new `preparing` asset with its playback IDs, queues its ingest and reports
// video.asset.created — one step for URL and upload assets alike, inside the caller's transaction
// (which wakes the worker once it has committed). A live recording (`liveStreamId`) is ingested
// once its broadcast ends, by the node that recorded it (lib/services/live).
export const insertAsset = async (
  tx: Prisma.TransactionClient,
  {
    settings,
    inputs,
    ingestType,
    uploadId,
    test,
    assetId = generateId(),
    liveStreamId,
  }: {
    settings: NormalizedAssetSettings;
    inputs: StoredInput[];
    ingestType: IngestType;
    uploadId?: string;
    test: boolean;
    assetId?: string;
    liveStreamId?: string;
  },
): Promise<AssetRecord> => {
  const asset = await tx.asset.create({
    data: {
      id: assetId,
      status: 'preparing',
      encodingTier: settings.encodingTier,
      maxResolutionTier: settings.maxResolutionTier,
      ingestType,
      uploadId: uploadId ?? null,
      masterAccess: settings.masterAccess,
      sourceAssetId: settings.clip?.sourceAssetId ?? null,
      inputsJson: JSON.stringify(inputs),
      passthrough: settings.passthrough ?? null,
      metaJson: settings.meta ? JSON.stringify(settings.meta) : null,
      test,
      mp4Support: settings.mp4Support,
      playbackIds: { create: settings.playbackPolicies.map((policy) => ({ id: generateId(), policy })) },
      ...(liveStreamId !== undefined && { liveStreamId, isLive: true, progressState: 'live' }),
    },
    include: assetInclude,
  });
  // Built once the asset is ready (see ingest-asset.ts); listed as preparing until then.
  const staticRenditions = await insertStaticRenditions(tx, { assetId, specs: staticRenditionSpecs(settings), announce: false });
  const created = { ...asset, staticRenditions };
  if (liveStreamId === undefined) {
    await enqueueJob({ transaction: tx, name: 'ingest-asset-job', payload: { assetId }, maxAttempts: 3, dedupeKey: `ingest:${assetId}` });
  }
  await recordWebhookEvent(tx, { type: 'video.asset.created', object: { type: 'asset', id: assetId }, data: assetJson(created) });
  await announceStaticRenditions(tx, assetId, staticRenditions);
  return created;
};
