import os from 'node:os';
import type { JobSlots } from '../../jobs/define-job';

// Encode jobs that follow readiness (the audio track, rungs above 1080p) each keep a core busy for
// a while. They ran two at most when they shared the ingest slots, and still do now that ingests
// have slots of their own: more would only crowd out the encodes viewers are waiting for.
export const postReadyEncodeSlots: JobSlots = {
  name: 'post-ready-encode',
  size: () => Math.max(1, Math.min(2, os.availableParallelism())),
};
