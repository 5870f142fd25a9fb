import type { Rung } from './ladder';

// BANDWIDTH (RFC 8216 §4.3.4.2) is the peak segment bit rate: that of the densest run of contiguous
// segments lasting 0.5–1.5 × the target duration (draft-pantos-hls-rfc8216bis §4.4.6.2 makes the
// window precise). A capped-CRF rung's segments are bounded by its VBV model: each segment is an
// encode of its own whose buffer starts VBV_INITIAL_FULLNESS full and refills at maxrate, so a
// segment of T seconds holds at most init × buffer + maxrate × T bits. The bound over the densest
// window is declared, so hls.js never sees a segment dearer than told.

// Half full, not x264's default 90 %: every segment starts a buffer of its own, so on short
// segments of hard content the default let a 5 s phone clip spend 9–15 % more than the
// fixed-average rungs did; half full keeps it at or under them with the same SSIM (quality bench).
export const VBV_INITIAL_FULLNESS = 0.5;
// fMP4 framing beside the coded frames: a moof with one trun entry per frame and the mdat header.
const FRAGMENT_OVERHEAD_BYTES = 256;
const SAMPLE_ENTRY_BYTES = 16;

/** The largest number of segments per second of any window the RFC measures the peak over. */
export const densestWindow = (durations: readonly number[], targetDuration: number): { segments: number; seconds: number } => {
  let densest: { segments: number; seconds: number } | null = null;
  for (let start = 0; start < durations.length; start++) {
    let seconds = 0;
    for (let end = start; end < durations.length; end++) {
      seconds += durations[end]!;
      if (seconds > 1.5 * targetDuration) break;
      const segments = end - start + 1;
      if (seconds >= 0.5 * targetDuration && (!densest || segments / seconds > densest.segments / densest.seconds)) densest = { segments, seconds };
    }
  }
  // A video shorter than half the target duration is one window.
  return densest ?? { segments: durations.length, seconds: durations.reduce((sum, duration) => sum + duration, 0) };
};

/** The highest bit rate (video only) a capped-CRF rung's segments can reach over the RFC's windows; null for rungs without rate control (their peak is not bounded). */
export const segmentPeakBitrate = (rung: Rung, durations: readonly number[], targetDuration: number): number | null => {
  if (!rung.rateControl || durations.length === 0) return null;
  const { segments, seconds } = densestWindow(durations, targetDuration);
  const frameRate = rung.frameRate ?? 30;
  const coded = segments * VBV_INITIAL_FULLNESS * rung.rateControl.bufferBits + rung.maxBitrate * seconds;
  const framing = 8 * (segments * FRAGMENT_OVERHEAD_BYTES + Math.ceil(seconds * frameRate + segments) * SAMPLE_ENTRY_BYTES);
  return Math.ceil((coded + framing) / seconds);
};
