import type { RouteClass } from './http-request-tally';
import { metricSet } from './metric-set';

// What the rest of Keyframe calls to count what it does, with plain values.

export type { RouteClass } from './http-request-tally';

/** How the scheduler ran an encode: its work class, or `background` for rungs above 1080p. */
export type EncodePriorityLabel = 'deadline' | 'speculative' | 'idle' | 'background';
export type WorkResult = 'ok' | 'error' | 'cancelled';

/** One HTTP request answered (or abandoned by its client) after `seconds`. */
export const recordHttpRequest = (route: RouteClass, status: number, seconds: number): void => {
  metricSet().httpRequests.record(route, status, seconds);
};

/** One segment encode finished; `seconds` is its running time (observed for successful encodes only). */
export const recordSegmentEncode = ({
  rung,
  priority,
  result,
  seconds,
}: {
  rung: string;
  priority: EncodePriorityLabel;
  result: WorkResult;
  seconds: number;
}): void => {
  const metrics = metricSet();
  metrics.segmentEncodes.inc({ rung, priority, result });
  if (result === 'ok') metrics.segmentEncodeDuration.observe({ rung, priority }, seconds);
};

/** A viewer asked for a just-in-time video segment: stored already (hit) or to be encoded (miss). */
export const recordSegmentCacheRequest = (result: 'hit' | 'miss'): void => {
  metricSet().segmentCacheRequests.inc({ result });
};

/** One run of a queued job ended. */
export const recordJobRun = ({ name, result, seconds }: { name: string; result: WorkResult; seconds: number }): void => {
  metricSet().jobDuration.observe({ name, result }, seconds);
};

export type IngestStep = 'download' | 'inspect_while_downloading' | 'cpu_slot_wait' | 'probe' | 'decode_check' | 'total';

export const recordIngestStep = ({ step, seconds }: { step: IngestStep; seconds: number }): void => {
  metricSet().ingestStepDuration.observe({ step }, seconds);
};

/** One webhook delivery attempt ended. */
export const recordWebhookDelivery = (result: 'delivered' | 'retry' | 'failed'): void => {
  metricSet().webhookDeliveries.inc({ result });
};
