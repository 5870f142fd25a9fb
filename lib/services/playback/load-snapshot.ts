import type { DeadlineScheduler } from '../../utils/deadline-scheduler';
import { rungCosts, type RungCost } from './encode-costs';

// What the just-in-time encoder is doing right now, for operators (dashboard, logs) and the bench.

export type EncodeKind = 'onDemand' | 'prefetch' | 'audio' | 'background';

/**
 * What a segment encode makes (image work has none): its rung, and whether the background-rungs
 * job asked for it (rungs above 1080p), which the scheduler's work classes do not tell apart from
 * filling idle encoders.
 */
export type EncodeSubject = {
  rung: string;
  forBackgroundRungs: boolean;
  /** False when another node encoded the segment and this one only waited for it (segment-lock.ts). */
  encodedHere?: boolean;
};

export type RungEncodeCost = RungCost;

export type EncodingLoad = {
  at: string;
  encoderLimit: number;
  running: number;
  queued: number;
  queuedByKind: Record<EncodeKind, number>;
  /** Encodes that finished after the deadline of the viewer waiting for them, since start. */
  deadlineMisses: number;
  /** Wall-clock seconds of encoding per second of media (smoothed), per rung ('audio': the audio track); above 1 the rung cannot keep up with one viewer on one encoder. */
  rungCosts: RungEncodeCost[];
};

export const describeLoad = (scheduler: DeadlineScheduler<EncodeKind, EncodeSubject>): EncodingLoad => {
  const { queued } = scheduler.countByKind();
  return {
    at: new Date().toISOString(),
    encoderLimit: scheduler.limit(),
    running: scheduler.running(),
    queued: scheduler.queued(),
    queuedByKind: {
      onDemand: queued.get('onDemand') ?? 0,
      prefetch: queued.get('prefetch') ?? 0,
      audio: queued.get('audio') ?? 0,
      background: queued.get('background') ?? 0,
    },
    deadlineMisses: scheduler.deadlineMisses(),
    rungCosts: rungCosts(),
  };
};
