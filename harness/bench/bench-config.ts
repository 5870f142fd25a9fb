import type { InputSpec } from './inputs';

// What the benchmark measures with, and against: its inputs and the limits its targets set.

export const SHORT_SECONDS = 30;
export const COLD_PLAYBACK_SECONDS = 60;
export const LONG_SECONDS = 300;
export const LIMITS = {
  timeToReady30Ms: 1_000,
  cameraTimeToReady30Ms: 700,
  cameraClientObservedMs: 1_000,
  ratio300To30: 1.3,
  coldSegment0Ms: 1_000,
  uploadPeakRssMB: 300,
  uploadRssGrowthMB: 50,
  deliveryRequestsPerSecondVsNginx: 0.5,
  deliveryP99VsNginx: 3,
};

// Every input, in the order time-to-ready interleaves them.
export const CLEAN_30: InputSpec = { kind: 'clean', durationSeconds: SHORT_SECONDS, moov: 'first' };
// The clean 30 s file with two more audio streams (a mono AAC and a 5.1 AC-3 one): what the extra
// tracks add to time-to-ready, measured beside it.
export const CLEAN_30_THREE_AUDIO: InputSpec = { ...CLEAN_30, audioTracks: 3 };
export const CLEAN_300: InputSpec = { kind: 'clean', durationSeconds: LONG_SECONDS, moov: 'first' };
export const CAMERA_30_FIRST: InputSpec = { kind: 'camera', durationSeconds: SHORT_SECONDS, moov: 'first' };
export const CAMERA_30_LAST: InputSpec = { kind: 'camera', durationSeconds: SHORT_SECONDS, moov: 'last' };
export const CAMERA_300_FIRST: InputSpec = { kind: 'camera', durationSeconds: LONG_SECONDS, moov: 'first' };
export const CAMERA_300_LAST: InputSpec = { kind: 'camera', durationSeconds: LONG_SECONDS, moov: 'last' };
export const ALL_INPUTS = [CLEAN_30, CLEAN_30_THREE_AUDIO, CAMERA_30_FIRST, CAMERA_30_LAST, CLEAN_300, CAMERA_300_FIRST, CAMERA_300_LAST];
// Cold playback: a camera file as a phone writes it (moov last) next to the clean one.
export const PLAYBACK_INPUTS = [CLEAN_300, CAMERA_300_LAST];
// Load: a camera file as a phone writes it, short enough to be played to its end.
export const LOAD_INPUT = CAMERA_30_LAST;
export const LOAD_LIMITS = { cachedFetchP99Ms: 100, burstLastReadyMs: 60_000 };
