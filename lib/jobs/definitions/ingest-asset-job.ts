import { z } from 'zod';
import { ingestAsset } from '../../services/ingest/ingest-asset';
import { markAssetErrored } from '../../services/ingest/mark-asset-errored';
import { defineJob } from '../define-job';
import { registerAssetWork } from '../signals';

export const ingestAssetJob = defineJob({
  name: 'ingest-asset-job',
  payloadSchema: z.object({ assetId: z.string() }),
  maxAttempts: 3,
  run: async ({ assetId }, { signal, log }) => {
    // Deleting the asset aborts its ingest as well as the worker shutting down.
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const unregister = registerAssetWork(assetId, controller);
    try {
      await ingestAsset({ assetId, signal: controller.signal, log: log.child({ assetId }) });
    } finally {
      unregister();
      signal.removeEventListener('abort', onAbort);
    }
  },
  onGiveUp: async ({ assetId }, error) => {
    const reason = error instanceof Error ? error.message : String(error);
    await markAssetErrored({ assetId, type: 'invalid_input', messages: [`Processing the input failed: ${reason}`] });
  },
});
