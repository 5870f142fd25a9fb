import { z } from 'zod';
import { buildStaticRendition, giveUpStaticRendition } from '../../services/static-renditions/build-static-rendition';
import { defineJob } from '../../jobs/define-job';
import { postReadyEncodeSlots } from './post-ready-encode-slots';

export const buildStaticRenditionJob = defineJob({
  name: 'build-static-rendition-job',
  payloadSchema: z.object({ renditionId: z.string() }),
  maxAttempts: 3,
  // Work that follows readiness, like the audio track: it must not take the cores ingests need.
  slots: postReadyEncodeSlots,
  run: ({ renditionId }, { signal, log }) => buildStaticRendition({ renditionId, signal, log: log.child({ renditionId }) }),
  onGiveUp: ({ renditionId }, error) => giveUpStaticRendition(renditionId, error),
});
