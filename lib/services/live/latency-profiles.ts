import type { LatencyMode } from '../../schemas/live-stream';

// Segment and part durations per latency mode. hls.js by default plays three target durations
// behind the live edge (low latency: PART-HOLD-BACK), and a segment can only be listed once the
// fragment after it has arrived, so glass-to-glass is about 3 × segment + one fragment + encode:
//   standard 2 s segments → ~7–8 s (target ≤ 12 s; Mux says 25–30 s),
//   reduced  1 s segments → ~4 s (target ≤ 6 s; needs a 1 s keyframe interval from the encoder,
//            since the source rendition is passed through and can only be cut at its keyframes),
//   low      LL-HLS: 2 s segments of 0.5 s parts, PART-HOLD-BACK 1.5 s → ~2.5 s (target ≤ 3 s).
// Fragments are 0.5 s in every mode so that a finished segment is listed at most half a second
// after its last frame.

export type LatencyProfile = {
  segmentSeconds: number;
  fragmentSeconds: number;
  lowLatency: { partTargetSeconds: number; partHoldBackSeconds: number } | null;
};

export const LATENCY_PROFILES: Record<LatencyMode, LatencyProfile> = {
  standard: { segmentSeconds: 2, fragmentSeconds: 0.5, lowLatency: null },
  reduced: { segmentSeconds: 1, fragmentSeconds: 0.5, lowLatency: null },
  low: { segmentSeconds: 2, fragmentSeconds: 0.5, lowLatency: { partTargetSeconds: 0.5, partHoldBackSeconds: 1.5 } },
};
