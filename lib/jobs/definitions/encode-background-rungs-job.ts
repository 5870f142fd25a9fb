import { z } from 'zod';
import { encodeBackgroundRungs } from '../../services/playback/encode-background-rungs';
import { defineJob } from '../define-job';
import { postReadyEncodeSlots } from './post-ready-encode-slots';
import { withAssetCancellation } from '../signals';

export const encodeBackgroundRungsJob = defineJob({
  name: 'encode-background-rungs-job',
  payloadSchema: z.object({ assetId: z.string() }),
  maxAttempts: 3,
  slots: postReadyEncodeSlots,
  run: async ({ assetId }, { signal }) =>
    withAssetCancellation(assetId, signal, (assetSignal) => encodeBackgroundRungs({ assetId, signal: assetSignal })),
});
