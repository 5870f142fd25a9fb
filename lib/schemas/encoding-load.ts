// GET /api/encoding-load: what the just-in-time encoder is doing right now, for operators (the
// dashboard, logs) and the bench. Made by lib/services/playback/load-snapshot.ts; declared here so
// the dashboard reads the very type the server sends.

export type EncodeKind = 'onDemand' | 'prefetch' | 'audio' | 'background';

/** A rung's smoothed cost on this machine (see lib/services/playback/encode-costs.ts). */
export type RungCost = { rung: string; samples: number; secondsPerMediaSecond: number };

export type EncodingLoad = {
  at: string;
  encoderLimit: number;
  running: number;
  queued: number;
  queuedByKind: Record<EncodeKind, number>;
  /** Encodes that finished after the deadline of the viewer waiting for them, since start. */
  deadlineMisses: number;
  /** CPU seconds of encoding per second of media (smoothed), per rung ('audio': the audio track); above 1 the rung cannot keep up with one viewer on one encoder. */
  rungCosts: RungCost[];
};
