// Query keys in one place so mutations invalidate exactly what they change.
export const queryKeys = {
  assets: ['assets'] as const,
  assetList: (params: { search: string; status: string; page: number }) => ['assets', 'list', params] as const,
  asset: (assetId: string) => ['assets', 'one', assetId] as const,
  assetRenditions: (assetId: string) => ['assets', 'renditions', assetId] as const,
  assetQuality: (assetId: string) => ['assets', 'quality', assetId] as const,
  assetInputs: (assetId: string) => ['assets', 'inputs', assetId] as const,
  trackTranscript: (assetId: string, trackId: string) => ['assets', 'transcript', assetId, trackId] as const,
  accessTokens: ['access-tokens'] as const,
  webhooks: ['webhooks'] as const,
  upload: (uploadId: string) => ['uploads', uploadId] as const,
  encodingLoad: ['encoding-load'] as const,
  liveStreams: ['live-streams'] as const,
  liveStreamLists: ['live-streams', 'list'] as const,
  liveStreamList: (page: number) => ['live-streams', 'list', page] as const,
  liveStream: (liveStreamId: string) => ['live-streams', 'one', liveStreamId] as const,
  liveStreamRecordings: (liveStreamId: string) => ['live-streams', 'recordings', liveStreamId] as const,
  analyticsSummary: (timeframe: string) => ['analytics', 'summary', timeframe] as const,
  analyticsSeries: (timeframe: string) => ['analytics', 'timeseries', timeframe] as const,
  analyticsBreakdown: (timeframe: string, dimension: string) => ['analytics', 'breakdown', timeframe, dimension] as const,
  analyticsErrors: (timeframe: string) => ['analytics', 'errors', timeframe] as const,
  viewersNow: ['analytics', 'viewers-now'] as const,
  analyticsMonitoring: ['analytics', 'monitoring'] as const,
  assetAnalytics: (assetId: string, timeframe: string) => ['analytics', 'asset', assetId, timeframe] as const,
  embedCode: (playbackId: string) => ['analytics', 'embed', playbackId] as const,
};

// While anything is preparing the dashboard polls every 2 s; otherwise it stays quiet.
export const PREPARING_POLL_MS = 2000;

// The ladder view follows encodes as they happen while the page is open.
export const RENDITIONS_POLL_MS = 3000;

// A quality report being measured is followed until it is ready (a few seconds per sampled segment).
export const QUALITY_POLL_MS = 2000;

// The encoding load is a live reading shown on every page; react-query pauses the interval while
// the tab is hidden, so an idle tab costs the server nothing.
export const ENCODING_LOAD_POLL_MS = 2000;

// A live stream's status changes when its publisher connects or leaves, which only the server
// sees: its page (and the table) follow it every 2 s while open.
export const LIVE_STATUS_POLL_MS = 2000;

// "Viewers now" counts views with a beacon in the last minute; every 5 s keeps it close to live.
export const VIEWERS_NOW_POLL_MS = 5000;

// Beacons are flushed to the database every second or two: the numbers follow every 30 s.
export const ANALYTICS_POLL_MS = 30_000;
