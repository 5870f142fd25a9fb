// What the chaos workload saw, as plain data (a run writes it out as JSON): every request any client
// made, what was created, what viewers were served, which webhooks arrived and what the
// broadcaster published. The invariant checks read nothing else from the run.

export type RequestKind =
  | 'asset-create'
  | 'asset-list'
  | 'asset-get'
  | 'upload-create'
  | 'upload-chunk'
  | 'upload-get'
  | 'playback-multivariant'
  | 'playback-playlist'
  | 'playback-init'
  | 'playback-video'
  | 'playback-audio'
  | 'live-stream-create'
  | 'live-stream-complete'
  | 'live-stream-get';

export type RequestRecord = {
  kind: RequestKind;
  method: string;
  /** Path (and query, except for upload URLs whose query is their credential). */
  path: string;
  /** Date.now() when the request was sent. */
  startedAt: number;
  durationMs: number;
  /** 0: no answer (network error, the 60 s client timeout, or cut short when the workload stopped). */
  status: number;
  retryAfter?: string;
  /** `error.type` of a Mux-shaped JSON error body. */
  errorType?: string;
  /** Set on requests made by the simulated viewers, which report no response headers. */
  headersUnseen?: true;
  note?: string;
};

export type CreatedAsset = { assetId: string; playbackId: string | null; createdAt: number };

export type UploadOutcome = 'in-progress' | 'succeeded' | 'failed' | 'cut-short';

export type UploadRecord = {
  uploadId: string;
  startedAt: number;
  finishedAt: number | null;
  outcome: UploadOutcome;
  /** Of the whole file the client sent. */
  sha256: string;
  bytes: number;
  /** Status of the last chunk request (0: no answer). */
  lastStatus: number;
  /** Why the client gave up, in UpChunk's terms. */
  failure?: string;
  /** Known once GET /video/v1/uploads/:id named it (the checks look again if it is still null). */
  assetId: string | null;
};

export type ViewerSession = {
  assetId: string;
  playbackId: string;
  startedAt: number;
  wallMs: number;
  startupMs: number | null;
  stalls: number;
  stalledSeconds: number;
  fetches: number;
  failedFetches: number;
  fetchedEverything: boolean;
  /** The viewer gave up with an exception (its requests are then not in the record). */
  error?: string;
};

export type SegmentKind = 'init' | 'video' | 'audio';

/** One media body a viewer was served (200), by URL path. */
export type SegmentObservation = {
  path: string;
  assetId: string;
  kind: SegmentKind;
  rendition: string;
  index: number | null;
  sha256: string;
  at: number;
};

export type WebhookDelivery = { eventId: string; type: string; objectId: string; receivedAt: number };

export type WebhookLog = {
  endpointId: string | null;
  setupError?: string;
  /**
   * Verified deliveries. Unlike the rest of the record this keeps growing after stop() until the
   * workload is closed: deliveries of events that happen while the checks wait still count.
   */
  deliveries: WebhookDelivery[];
  /** Requests whose signature did not verify (answered 400, so Keyframe delivers them again). */
  signatureFailures: number;
};

export type PublishSession = {
  rtmpUrl: string;
  startedAt: number;
  endedAt: number;
  exitCode: number | null;
  /** `exit`: ffmpeg ended by itself (the node went away or refused); `stop`: the workload ended it. */
  endedBy: 'exit' | 'stop';
  stderrTail: string;
  /**
   * The end of the session during which the node took nothing: ffmpeg's I/O timeout when it gave
   * up on a node that did not answer (frozen), else 0. Not counted as published.
   */
  stalledSeconds: number;
};

export type BroadcastRecord = {
  liveStreamId: string;
  sessions: PublishSession[];
  /** Sum of the sessions' wall-clock lengths, less the ends during which a node took nothing. */
  publishedSeconds: number;
  /** Between one session's end and the next one's start. */
  gaps: Array<{ startedAt: number; seconds: number }>;
  /** Status of PUT …/complete (0: no answer; null: never sent). */
  completeStatus: number | null;
  /** recent_asset_ids of the stream as last read (the checks read it again). */
  recordingAssetIds: string[];
};

export type ChaosRates = {
  /** One POST /video/v1/assets from the input URL this often. */
  createEveryMs: number;
  /** One direct upload this often. */
  uploadEveryMs: number;
  /** A multiple of 256 KiB, as UpChunk requires. */
  uploadChunkBytes: number;
  /** Simulated viewers running at once. */
  viewers: number;
  watchSeconds: number;
  /** One API read (alternately a list and one asset) this often. */
  apiReadEveryMs: number;
  /** Publish a live stream when the target has RTMP ingest. */
  broadcast: boolean;
};

export type WorkloadRecord = {
  startedAt: number;
  /** When stop() was called (no new work after it). */
  stoppedAt: number | null;
  /** When the last in-flight operation ended (or was cut short). */
  finishedAt: number | null;
  rates: ChaosRates;
  requests: RequestRecord[];
  creates: CreatedAsset[];
  uploads: UploadRecord[];
  viewers: ViewerSession[];
  segments: SegmentObservation[];
  webhooks: WebhookLog;
  broadcast: BroadcastRecord | null;
  /** Playback ID of every asset the workload learnt one of (creates, API reads). */
  playbackIds: Record<string, string>;
};
