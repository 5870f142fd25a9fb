import type { AssetJson } from '@/lib/schemas/asset';
import type { LatencyMode, LiveStreamJson, LiveStreamStatus } from '@/lib/schemas/live-stream';
import type { RenditionJson } from '@/lib/schemas/rendition-status';
import type { TrackJson } from '@/lib/schemas/track';

// Wire shapes of the dashboard JSON routes (the asset and upload ones are the public API's).

export type { AssetJson, LatencyMode, LiveStreamJson, LiveStreamStatus, RenditionJson, TrackJson };
/** One of asset.tracks: the video track, an audio or text track (or an old asset's probed audio). */
export type AssetTrackJson = NonNullable<AssetJson['tracks']>[number];
export type AssetStatusFilter = '' | 'preparing' | 'ready' | 'errored';
export type AssetPage = { data: AssetJson[]; total: number; preparing: number; page: number; limit: number };
export type PlaybackPolicy = 'public' | 'signed';
export type VideoQuality = 'basic' | 'plus';
export type MaxResolutionTier = '1080p' | '1440p' | '2160p';
export type NewAssetSettings = {
  video_quality: VideoQuality;
  max_resolution_tier: MaxResolutionTier;
  playback_policies: PlaybackPolicy[];
};

export type UploadJson = {
  id: string;
  status: 'waiting' | 'asset_created' | 'errored' | 'cancelled' | 'timed_out';
  url?: string;
  asset_id?: string;
  error?: { type: string; message: string };
};

export type AccessTokenJson = {
  id: string;
  name: string;
  permission: 'read_write' | 'read_only';
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
};
export type CreatedAccessToken = { id: string; secret: string; name: string; permission: AccessTokenJson['permission'] };

export type WebhookEndpointJson = {
  id: string;
  url: string;
  secret: string;
  created_at: string;
  deliveries?: { pending: number; delivered: number; failed: number };
};
export type WebhookDeliveryJson = {
  id: string;
  event_id: string;
  event_type: string;
  object_id: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  last_attempt: { at: string; response_status: number | null; latency_ms: number; error: string | null } | null;
};

// GET /api/encoding-load (the server's EncodingLoad snapshot as it is; see lib/services/playback/encoding-load.ts).
export type EncodeKind = 'onDemand' | 'prefetch' | 'audio' | 'background';
export type EncodingLoadJson = {
  at: string;
  encoderLimit: number;
  running: number;
  queued: number;
  queuedByKind: Record<EncodeKind, number>;
  deadlineMisses: number;
  rungCosts: Array<{ rung: string; samples: number; secondsPerMediaSecond: number }>;
};

// Live streams: the table leaves the stream key out; a stream's page gets it with the addresses to
// publish to and to play from.
export type LiveStreamRowJson = Omit<LiveStreamJson, 'stream_key'>;
export type LiveStreamPage = { data: LiveStreamRowJson[]; total: number; page: number; limit: number };
export type LiveIngestJson = { rtmp_url: string; rtmp_enabled: boolean; stream_url: string };
export type LiveStreamWithIngest = { data: LiveStreamJson; ingest: LiveIngestJson };
export type LiveStreamRecordingJson = { id: string; asset: AssetJson | null };
export type NewLiveStream = {
  title?: string;
  latency_mode: LatencyMode;
  /** Left out for Mux's default (60 s in standard latency, 0 otherwise). */
  reconnect_window?: number;
  playback_policy: PlaybackPolicy;
  /** Record each broadcast to an asset with the stream's playback policy. */
  record: boolean;
};
