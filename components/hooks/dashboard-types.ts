import type { AccessTokenJson, CreatedAccessTokenJson } from '@/lib/schemas/access-token';
import type { AssetJson } from '@/lib/schemas/asset';
import type { MaxResolutionTier, PlaybackPolicy, VideoQuality } from '@/lib/schemas/asset-settings';
import type { EncodeKind, EncodingLoad } from '@/lib/schemas/encoding-load';
import type { LatencyMode, LiveStreamJson, LiveStreamStatus } from '@/lib/schemas/live-stream';
import type { QualityReportJson, RungQuality } from '@/lib/schemas/quality-report';
import type { RenditionJson } from '@/lib/schemas/rendition-status';
import type { CreateSimulcastTargetBody, SimulcastTargetJson, SimulcastTargetStatus } from '@/lib/schemas/simulcast-target';
import type { TrackJson } from '@/lib/schemas/track';
import type { UploadJson } from '@/lib/schemas/upload';
import type { WebhookDeliveryJson, WebhookEndpointJson } from '@/lib/schemas/webhook-dashboard';

// Wire shapes of the dashboard JSON routes (the asset and upload ones are the public API's).

export type { AccessTokenJson, AssetJson, CreateSimulcastTargetBody, EncodeKind, LatencyMode, LiveStreamJson, LiveStreamStatus, MaxResolutionTier, PlaybackPolicy, QualityReportJson, RenditionJson, RungQuality, SimulcastTargetJson, SimulcastTargetStatus, TrackJson, UploadJson, VideoQuality, WebhookDeliveryJson, WebhookEndpointJson };
/** One of asset.tracks: the video track, an audio or text track (or an old asset's probed audio). */
export type AssetTrackJson = NonNullable<AssetJson['tracks']>[number];
export type AssetStatusFilter = '' | 'preparing' | 'ready' | 'errored';
export type AssetPage = { data: AssetJson[]; total: number; preparing: number; page: number; limit: number };
export type NewAssetSettings = {
  video_quality: VideoQuality;
  max_resolution_tier: MaxResolutionTier;
  playback_policies: PlaybackPolicy[];
};

export type CreatedAccessToken = CreatedAccessTokenJson;

// GET /api/encoding-load: the server's EncodingLoad snapshot as it is.
export type EncodingLoadJson = EncodingLoad;

// Live streams: the table leaves the stream keys out (the stream's and its simulcast targets'); a
// stream's page gets them with the addresses to publish to and to play from.
export type LiveStreamRowJson = Omit<LiveStreamJson, 'stream_key' | 'srt_passphrase' | 'simulcast_targets'> & {
  simulcast_targets?: Array<Omit<SimulcastTargetJson, 'stream_key'>>;
};
export type LiveStreamPage = { data: LiveStreamRowJson[]; total: number; page: number; limit: number };
export type LiveIngestJson = { rtmp_url: string; rtmp_enabled: boolean; rtmps_url: string | null; rtmps_self_signed: boolean; srt_url: string | null; stream_url: string };
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
  /** Generated English captions, live and on the recording. */
  captions: boolean;
};
