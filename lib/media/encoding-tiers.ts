// The two choices of an asset that shape its ladder, as stored (Asset.encodingTier,
// Asset.maxResolutionTier) and as the API names them (encoding_tier, max_resolution_tier).
// Declared here, below both the ladder and the request schemas (lib/schemas re-exports them for
// the dashboard, which may not import lib/media).

/** `smart` = video_quality `plus`, `baseline` = `basic`, `premium` = `premium` (smart's rungs, a higher quality target). */
export type EncodingTier = 'smart' | 'baseline' | 'premium';
export type MaxResolutionTier = '1080p' | '1440p' | '2160p';
