import { z } from 'zod';
import { getEnv } from '../../env';
import { isStoredFile, sourceFilePath } from '../../storage/asset-files';
import { ingestAsset } from '../../services/ingest/ingest-asset';
import { markAssetErrored } from '../../services/ingest/mark-asset-errored';
import { defineJob } from '../../jobs/define-job';
import { withAssetCancellation } from '../../jobs/signals';

export const ingestAssetJob = defineJob({
  name: 'ingest-asset-job',
  payloadSchema: z.object({ assetId: z.string() }),
  maxAttempts: 3,
  // Many at once: an ingest mostly waits for bytes; its CPU-bound steps queue for slots of their
  // own, sized to the cores (see ingest-cpu-slots.ts).
  slots: { name: 'ingest', size: () => getEnv().ingestConcurrency },
  // Deleting the asset aborts its ingest as well as the worker shutting down.
  run: async ({ assetId }, { signal, log }) =>
    withAssetCancellation(assetId, signal, (assetSignal) => ingestAsset({ assetId, signal: assetSignal, log: log.child({ assetId }) })),
  onGiveUp: async ({ assetId }, error) => {
    const reason = error instanceof Error ? error.message : String(error);
    // A ready asset can only still be here because its source never finished downloading.
    const sourceMissing = !(await isStoredFile(sourceFilePath(getEnv().dataDir, assetId)));
    await markAssetErrored({ assetId, type: 'invalid_input', messages: [`Processing the input failed: ${reason}`], fromReady: sourceMissing });
  },
});
