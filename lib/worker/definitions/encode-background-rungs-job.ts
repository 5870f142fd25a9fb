import { z } from 'zod';
import { queueBackgroundSegments } from '../../services/playback/encode-background-rungs';
import { defineJob } from '../../jobs/define-job';
import { postReadyEncodeSlots } from './post-ready-encode-slots';

export const encodeBackgroundRungsJob = defineJob({
  name: 'encode-background-rungs-job',
  payloadSchema: z.object({ assetId: z.string() }),
  maxAttempts: 3,
  slots: postReadyEncodeSlots,
  // Only queues the segments (encode-background-segment-job), so any worker can take each.
  run: async ({ assetId }, { log }) => {
    const queued = await queueBackgroundSegments({ assetId });
    if (queued > 0) log.info({ assetId, segments: queued }, 'background rung segments queued');
  },
});
