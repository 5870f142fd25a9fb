import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { SegmentCache } from '../../storage/segment-cache';
import { PrioritySemaphore } from '../../utils/priority-semaphore';
import { processSingleton } from '../../utils/process-singleton';

// Process-wide state of the just-in-time encoder: the global encode limit, the in-flight encodes
// (so concurrent requests for one segment share one ffmpeg run) and the bounded rendition cache.

export const ENCODE_PRIORITY = { onDemand: 0, prefetch: 1, background: 2 } as const;

export const encoderSlots = (): PrioritySemaphore =>
  processSingleton('encoder-slots', () => new PrioritySemaphore(getEnv().jitEncodeConcurrency));

// Prefetch and background encodes may use all slots but one, so a viewer's on-demand request never
// waits behind work nobody is watching yet.
export const speculativeSlots = (): PrioritySemaphore =>
  processSingleton('speculative-slots', () => new PrioritySemaphore(Math.max(1, getEnv().jitEncodeConcurrency - 1)));

export type InFlightEncode = {
  done: Promise<void>;
  priority: number;
  started: boolean;
  // Aborts the encode: while it waits for a slot (a prefetch overtaken by a viewer), or running
  // (its ffmpeg is killed) when nobody wants it any more.
  cancel: AbortController;
  // Viewers' requests waiting for this encode; when the last one goes away, an on-demand encode
  // is cancelled rather than left holding an encoder.
  viewers: number;
};

export const inFlightEncodes = (): Map<string, InFlightEncode> =>
  processSingleton('in-flight-encodes', () => new Map<string, InFlightEncode>());

export const segmentCache = (): SegmentCache =>
  processSingleton(
    'segment-cache',
    () =>
      new SegmentCache({
        maxBytes: getEnv().renditionCacheMaxBytes,
        onError: (error: unknown) => getLogger().warn({ err: error }, 'rendition cache eviction failed'),
      }),
  );

// Only just-in-time video segments are evictable: init segments are tiny, the audio track is
// encoded once, and background rungs (≥1440p) are too slow to re-encode on demand.
export const isEvictableSegment = (relativePath: string): boolean => {
  const match = /^[^/]+\/hls\/(\d+)p\/\d+\.m4s$/.exec(relativePath.split('\\').join('/'));
  return match?.[1] !== undefined && Number(match[1]) <= 1080;
};
