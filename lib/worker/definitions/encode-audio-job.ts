import { z } from 'zod';
import { whenIngestCpuHasRoom } from '../../services/ingest/ingest-cpu-slots';
import { encodeAudioTracks } from '../../services/playback/encode-audio-track';
import { defineJob } from '../../jobs/define-job';
import { postReadyEncodeSlots } from './post-ready-encode-slots';

export const encodeAudioJob = defineJob({
  name: 'encode-audio-job',
  payloadSchema: z.object({ assetId: z.string() }),
  maxAttempts: 3,
  slots: postReadyEncodeSlots,
  // A head start for the first viewer (whose own request starts the same encode at once), so it
  // lets assets still being checked have the cores first. Every audio stream of the source.
  run: async ({ assetId }, { signal }) => {
    await whenIngestCpuHasRoom(signal);
    await encodeAudioTracks({ assetId });
  },
});
