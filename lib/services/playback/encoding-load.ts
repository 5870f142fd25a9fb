import { getEnv } from '../../env';
import { encoderSlots, inFlightEncodes, speculativeSlots } from './runtime';

// What the just-in-time encoder is doing right now, for operators (dashboard, logs) and the bench.

export type EncodeKind = 'onDemand' | 'prefetch' | 'audio' | 'background';

export type RungEncodeCost = {
  rung: string;
  /** Encodes measured for this rung since start. */
  samples: number;
  /** Wall-clock seconds of encoding per second of media (smoothed); above 1 the rung cannot keep up with one viewer on one encoder. */
  secondsPerMediaSecond: number;
};

export type EncodingLoad = {
  at: string;
  encoderLimit: number;
  running: number;
  queued: number;
  queuedByKind: Record<EncodeKind, number>;
  /** Encodes that finished after the deadline of the viewer waiting for them, since start. */
  deadlineMisses: number;
  rungCosts: RungEncodeCost[];
};

export const encodingLoad = (): EncodingLoad => {
  const queued = encoderSlots().pending() + speculativeSlots().pending();
  let prefetch = 0;
  let background = 0;
  for (const flight of inFlightEncodes().values()) {
    if (flight.started) continue;
    if (flight.priority === 1) prefetch++;
    if (flight.priority === 2) background++;
  }
  return {
    at: new Date().toISOString(),
    encoderLimit: getEnv().jitEncodeConcurrency,
    running: encoderSlots().active(),
    queued,
    queuedByKind: { onDemand: Math.max(0, queued - prefetch - background), prefetch, audio: 0, background },
    deadlineMisses: 0,
    rungCosts: [],
  };
};
