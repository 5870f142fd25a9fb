import { z } from 'zod';
import { whenIngestCpuHasRoom } from '../../services/ingest/ingest-cpu-slots';
import { encodeBackgroundRungs } from '../../services/playback/encode-background-rungs';
import { defineJob } from '../define-job';
import { postReadyEncodeSlots } from './post-ready-encode-slots';
import { withAssetCancellation } from '../signals';

export const encodeBackgroundRungsJob = defineJob({
  name: 'encode-background-rungs-job',
  payloadSchema: z.object({ assetId: z.string() }),
  maxAttempts: 3,
  slots: postReadyEncodeSlots,
  // Nobody waits for these rungs; assets still being checked get the cores first.
  run: async ({ assetId }, { signal }) => {
    await whenIngestCpuHasRoom(signal);
    await withAssetCancellation(assetId, signal, (assetSignal) => encodeBackgroundRungs({ assetId, signal: assetSignal }));
  },
});
