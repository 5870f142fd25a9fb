import type { EncodeKind, EncodingLoadJson } from '../hooks/dashboard-types';

// Wording shared by the status strip and the encoding-load page, so both say the same thing.

export const ENCODING_LOAD_PATH = '/encoding-load';

export const isIdle = (load: EncodingLoadJson): boolean => load.running === 0 && load.queued === 0;

/** "Idle", or e.g. "1/2 busy · 3 queued"; deadline misses are added by the caller that shows them. */
export const summarizeLoad = (load: EncodingLoadJson): string => {
  if (isIdle(load)) return 'Idle';
  const busy = `${load.running}/${load.encoderLimit} busy`;
  return load.queued > 0 ? `${busy} · ${load.queued} queued` : busy;
};

export type LoadLevel = 'idle' | 'busy' | 'queued';

// Queued work means someone may be waiting for an encoder; busy without a queue is the normal case.
export const loadLevel = (load: EncodingLoadJson): LoadLevel => (isIdle(load) ? 'idle' : load.queued > 0 ? 'queued' : 'busy');

export const QUEUE_KINDS: Array<{ kind: EncodeKind; label: string; meaning: string }> = [
  { kind: 'onDemand', label: 'On demand', meaning: 'a viewer is waiting for this segment' },
  { kind: 'prefetch', label: 'Prefetch', meaning: 'segments just ahead of a viewer' },
  { kind: 'audio', label: 'Audio', meaning: 'audio segments viewers are waiting for' },
  { kind: 'background', label: 'Background', meaning: 'the rest of the ladder of watched assets, only while idle' },
];

export const formatEncodeCost = (secondsPerMediaSecond: number): string =>
  `${secondsPerMediaSecond.toFixed(secondsPerMediaSecond < 10 ? 2 : 1)} CPU-s per s`;
