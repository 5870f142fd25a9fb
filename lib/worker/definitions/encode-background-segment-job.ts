import os from 'node:os';
import { z } from 'zod';
import { whenIngestCpuHasRoom } from '../../services/ingest/ingest-cpu-slots';
import { encodeBackgroundSegment } from '../../services/playback/encode-background-rungs';
import { defineJob } from '../../jobs/define-job';
import { withAssetCancellation } from '../../jobs/signals';

export const encodeBackgroundSegmentJob = defineJob({
  name: 'encode-background-segment-job',
  payloadSchema: z.object({ assetId: z.string(), rung: z.string(), index: z.number().int().min(0) }),
  maxAttempts: 3,
  // Slots of their own, so the thousands of segments of a long 4K asset do not queue ahead of the
  // audio tracks of assets that became ready after it. The encodes themselves are idle work for the
  // encoder scheduler (nice 19, preempted by any viewer's segment), which is what keeps them off
  // the cores viewers need.
  slots: { name: 'background-segment', size: () => Math.max(1, Math.min(2, os.availableParallelism())) },
  // Nobody waits for these rungs; assets still being checked get the cores first.
  run: async ({ assetId, rung, index }, { signal }) => {
    await whenIngestCpuHasRoom(signal);
    await withAssetCancellation(assetId, signal, (assetSignal) => encodeBackgroundSegment({ assetId, rung, index, signal: assetSignal }));
  },
});
