import { z } from 'zod';
import { encodeAudioTrack } from '../../services/playback/encode-audio-track';
import { defineJob } from '../define-job';
import { postReadyEncodeSlots } from './post-ready-encode-slots';

export const encodeAudioJob = defineJob({
  name: 'encode-audio-job',
  payloadSchema: z.object({ assetId: z.string() }),
  maxAttempts: 3,
  slots: postReadyEncodeSlots,
  run: async ({ assetId }) => encodeAudioTrack({ assetId }),
});
