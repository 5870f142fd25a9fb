import { z } from 'zod';
import { generateCaptions } from '../../services/tracks/generate-captions';
import { prepareAudioTrack } from '../../services/tracks/prepare-audio-track';
import { prepareTextTrack } from '../../services/tracks/prepare-text-track';
import { giveUpTrack } from '../../services/tracks/settle-track';
import { defineJob } from '../../jobs/define-job';
import { postReadyEncodeSlots } from './post-ready-encode-slots';

// One job per track being prepared (see lib/services/tracks/insert-tracks.ts). A job that gives up
// after its retries errors its track with the reason; the asset is not affected.

const payloadSchema = z.object({ trackId: z.string() });

/** Fetches a WebVTT or SRT file, checks it and stores it as WebVTT: mostly network, slots of its own. */
export const prepareTextTrackJob = defineJob({
  name: 'prepare-text-track-job',
  payloadSchema,
  maxAttempts: 3,
  slots: { name: 'text-track', size: () => 4 },
  run: ({ trackId }, { signal, log }) => prepareTextTrack({ trackId, signal, log: log.child({ trackId }) }),
  onGiveUp: async ({ trackId }, error) => void (await giveUpTrack(trackId, error)),
});

/** Fetches an audio file and encodes it aligned to the video: an encode, in the post-ready slots. */
export const prepareAudioTrackJob = defineJob({
  name: 'prepare-audio-track-job',
  payloadSchema,
  maxAttempts: 3,
  slots: postReadyEncodeSlots,
  run: ({ trackId }, { signal, log }) => prepareAudioTrack({ trackId, signal, log: log.child({ trackId }) }),
  onGiveUp: async ({ trackId }, error) => void (await giveUpTrack(trackId, error)),
});

/** Transcribes an audio track into a text track: a core for a while, in the post-ready slots. */
export const generateCaptionsJob = defineJob({
  name: 'generate-captions-job',
  payloadSchema,
  maxAttempts: 2,
  slots: postReadyEncodeSlots,
  run: ({ trackId }, { signal, log }) => generateCaptions({ trackId, signal, log: log.child({ trackId }) }),
  onGiveUp: async ({ trackId }, error) => void (await giveUpTrack(trackId, error)),
});
