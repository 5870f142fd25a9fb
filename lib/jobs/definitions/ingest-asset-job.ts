import { z } from 'zod';
import { ingestAsset } from '../../services/ingest/ingest-asset';
import { markAssetErrored } from '../../services/ingest/mark-asset-errored';
import { defineJob } from '../define-job';
import { withAssetCancellation } from '../signals';

export const ingestAssetJob = defineJob({
  name: 'ingest-asset-job',
  payloadSchema: z.object({ assetId: z.string() }),
  maxAttempts: 3,
  // Deleting the asset aborts its ingest as well as the worker shutting down.
  run: async ({ assetId }, { signal, log }) =>
    withAssetCancellation(assetId, signal, (assetSignal) => ingestAsset({ assetId, signal: assetSignal, log: log.child({ assetId }) })),
  onGiveUp: async ({ assetId }, error) => {
    const reason = error instanceof Error ? error.message : String(error);
    await markAssetErrored({ assetId, type: 'invalid_input', messages: [`Processing the input failed: ${reason}`] });
  },
});
