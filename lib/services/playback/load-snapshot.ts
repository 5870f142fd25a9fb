import type { EncodeKind, EncodingLoad, RungCost } from '../../schemas/encoding-load';
import type { DeadlineScheduler } from '../../utils/deadline-scheduler';
import { rungCosts } from './encode-costs';

// What the just-in-time encoder is doing right now, for operators (dashboard, logs) and the bench.

export type { EncodeKind, EncodingLoad };

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
