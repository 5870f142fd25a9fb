import { z } from 'zod';
import { defineJob } from '../../jobs/define-job';
import { withAssetCancellation } from '../../jobs/signals';
import { giveUpQualityReport, measureAssetQuality } from '../../services/quality/measure-asset-quality';
import { postReadyEncodeSlots } from './post-ready-encode-slots';

export const measureQualityJob = defineJob({
  name: 'measure-quality-job',
  payloadSchema: z.object({ assetId: z.string() }),
  maxAttempts: 2,
  // Its encodes are idle work and its scoring runs at nice 19; the slots keep two at most going.
  slots: postReadyEncodeSlots,
  run: ({ assetId }, { signal }) => withAssetCancellation(assetId, signal, (assetSignal) => measureAssetQuality({ assetId, signal: assetSignal })),
  onGiveUp: ({ assetId }, error) => giveUpQualityReport(assetId, error),
});
