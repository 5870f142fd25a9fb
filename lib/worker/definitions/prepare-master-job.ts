import { z } from 'zod';
import { markMasterErrored } from '../../services/master/master-state';
import { prepareMaster } from '../../services/master/prepare-master';
import { defineJob } from '../../jobs/define-job';
import { withAssetCancellation } from '../../jobs/signals';
import { postReadyEncodeSlots } from './post-ready-encode-slots';

export const prepareMasterJob = defineJob({
  name: 'prepare-master-job',
  payloadSchema: z.object({ assetId: z.string() }),
  maxAttempts: 3,
  // A remux takes seconds, an encode keeps a core busy: it shares the post-ready encodes' slots.
  slots: postReadyEncodeSlots,
  run: async ({ assetId }, { signal }) => withAssetCancellation(assetId, signal, (assetSignal) => prepareMaster({ assetId, signal: assetSignal })),
  onGiveUp: async ({ assetId }) => markMasterErrored(assetId),
});
