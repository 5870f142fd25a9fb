import type { AssetJson } from '@/lib/schemas/asset';
import type { MaxResolutionTier, PlaybackPolicy, VideoQuality } from '@/lib/schemas/asset-settings';
import type { EncodeKind, EncodingLoad } from '@/lib/schemas/encoding-load';
import type { LatencyMode, LiveStreamJson, LiveStreamStatus } from '@/lib/schemas/live-stream';
import type { RenditionJson } from '@/lib/schemas/rendition-status';
import type { TrackJson } from '@/lib/schemas/track';
import type { UploadJson } from '@/lib/schemas/upload';

// Wire shapes of the dashboard JSON routes (the asset and upload ones are the public API's).

export type { AssetJson, EncodeKind, LatencyMode, LiveStreamJson, LiveStreamStatus, MaxResolutionTier, PlaybackPolicy, RenditionJson, TrackJson, UploadJson, VideoQuality };
/** One of asset.tracks: the video track, an audio or text track (or an old asset's probed audio). */
export type AssetTrackJson = NonNullable<AssetJson['tracks']>[number];
export type AssetStatusFilter = '' | 'preparing' | 'ready' | 'errored';
export type AssetPage = { data: AssetJson[]; total: number; preparing: number; page: number; limit: number };
export type NewAssetSettings = {
  video_quality: VideoQuality;
  max_resolution_tier: MaxResolutionTier;
  playback_policies: PlaybackPolicy[];
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

// GET /api/encoding-load: the server's EncodingLoad snapshot as it is.
export type EncodingLoadJson = EncodingLoad;

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
