// Query keys in one place so mutations invalidate exactly what they change.
export const queryKeys = {
  assets: ['assets'] as const,
  assetList: (params: { search: string; status: string; page: number }) => ['assets', 'list', params] as const,
  asset: (assetId: string) => ['assets', 'one', assetId] as const,
  assetRenditions: (assetId: string) => ['assets', 'renditions', assetId] as const,
  assetInputs: (assetId: string) => ['assets', 'inputs', assetId] as const,
  trackTranscript: (assetId: string, trackId: string) => ['assets', 'transcript', assetId, trackId] as const,
  accessTokens: ['access-tokens'] as const,
  webhooks: ['webhooks'] as const,
  upload: (uploadId: string) => ['uploads', uploadId] as const,
  encodingLoad: ['encoding-load'] as const,
};

// While anything is preparing the dashboard polls every 2 s; otherwise it stays quiet.
export const PREPARING_POLL_MS = 2000;

// The ladder view follows encodes as they happen while the page is open.
export const RENDITIONS_POLL_MS = 3000;

// The encoding load is a live reading shown on every page; react-query pauses the interval while
// the tab is hidden, so an idle tab costs the server nothing.
export const ENCODING_LOAD_POLL_MS = 2000;
