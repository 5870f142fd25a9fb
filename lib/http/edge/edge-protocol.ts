import type { PlaybackWorkerForget } from '../../coordination/playback-worker-caches';
import type { TallySnapshot } from '../../metrics/http-request-tally';

// How the playback workers (lib/server/playback-worker.ts) and the app process behind them talk:
// a few private headers on the requests they forward over the app's Unix socket, and messages over
// the cluster IPC channel. A client can never set these headers: the workers drop every
// `x-keyframe-edge-*` header a client sends, and the app reads them only on its private socket.

export const EDGE_HEADER_PREFIX = 'x-keyframe-edge-';

/** Request, worker → app: the client's address (the app sees only the worker's socket). */
export const CLIENT_ADDRESS_HEADER = 'x-keyframe-edge-client';
/** Request, worker → app: the worker will send a stored file itself if told its path. */
export const TAKES_FILES_HEADER = 'x-keyframe-edge-takes-files';

/**
 * Response, app → worker: this answer is a public playlist served from memory, which the worker may
 * keep and answer itself until told to forget it. Value: `<kind> <playbackId> <assetId>`.
 */
export const CACHEABLE_HEADER = 'x-keyframe-edge-cacheable';
/** Response, app → worker: status and headers are final; the body is bytes `start-end` of this file. */
export const FILE_HEADER = 'x-keyframe-edge-file';
export const FILE_RANGE_HEADER = 'x-keyframe-edge-file-range';
/** Response, app → worker, with a file: its whole size, so a worker keeping the answer can serve any range. */
export const FILE_SIZE_HEADER = 'x-keyframe-edge-file-size';

export type CacheableKind = 'multivariant' | 'rendition' | 'file';

export const cacheableValue = (kind: CacheableKind, playbackId: string, assetId: string) => `${kind} ${playbackId} ${assetId}`;

export const parseCacheable = (value: string): { kind: CacheableKind; playbackId: string; assetId: string } | null => {
  const [kind, playbackId, assetId] = value.split(' ');
  if ((kind !== 'multivariant' && kind !== 'rendition' && kind !== 'file') || !playbackId || !assetId) return null;
  return { kind, playbackId, assetId };
};

/** What a worker must stop answering by itself. */
export type EdgeForget = PlaybackWorkerForget;


export type AppToWorker =
  | { type: 'forget'; id: number; what: EdgeForget }
  // Whether multivariant playlists may be answered from a worker's memory: only while the encoders
  // are not steering new viewers (the app then picks the rungs per request).
  | { type: 'multivariants'; cacheable: boolean }
  | { type: 'stop' };

/**
 * A stored segment a worker sent from its own cache: the app notes it as if it had answered it
 * (the viewer's progress and deadline, what is watched, the rendition cache's recency, prefetch).
 */
export type ServedFile = { playbackId: string; rendition: string; file: string; client: string };

export type WorkerToApp = { type: 'forgot'; id: number } | { type: 'tally'; snapshot: TallySnapshot } | { type: 'served'; files: ServedFile[] };
