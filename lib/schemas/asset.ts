import { unixSeconds } from './common';
import { videoQualityFor, type EncodingTier } from './asset-settings';
import { serializeStaticRenditions, type StaticRenditionRecord } from './static-rendition';
import { compareTracks, serializeTrack, type TrackJson, type TrackRecord } from './track';

// Maps stored assets to the Mux wire format (snake_case, `created_at` as a string of Unix seconds,
// fields that are not known yet left out rather than sent as null).

export type PlaybackIdRecord = { id: string; policy: string };

// A live stream's recording, by how its broadcast was published (RTMPS is RTMP: Mux has no
// ingest_type of its own for it).
export const LIVE_INGEST_TYPES = ['live_rtmp', 'live_srt'] as const;
export type LiveIngestType = (typeof LIVE_INGEST_TYPES)[number];
export const isLiveIngestType = (ingestType: string): ingestType is LiveIngestType => (LIVE_INGEST_TYPES as readonly string[]).includes(ingestType);

export type AssetRecord = {
  id: string;
  status: string;
  progressState: string;
  encodingTier: string;
  maxResolutionTier: string;
  mp4Support: string;
  masterAccess: string;
  ingestType: string;
  passthrough: string | null;
  metaJson: string | null;
  test: boolean;
  uploadId: string | null;
  durationSeconds: number | null;
  aspectRatio: string | null;
  maxFrameRate: number | null;
  resolutionTier: string | null;
  tracksJson: string | null;
  errorType: string | null;
  errorMessagesJson: string | null;
  createdAt: Date;
  sourceAssetId: string | null;
  masterStatus: string | null;
  masterExpiresAt: Date | null;
  /** Set on a live stream's recording; isLive while its broadcast runs. */
  liveStreamId: string | null;
  isLive: boolean;
  recordingTimesJson: string | null;
  playbackIds: PlaybackIdRecord[];
  staticRenditions: StaticRenditionRecord[];
  /** Audio and text tracks (Track rows), in creation order. */
  tracks: TrackRecord[];
};

export type VideoTrack = {
  id: string;
  type: 'video';
  duration?: number;
  max_width: number;
  max_height: number;
  max_frame_rate: number;
};
export type AudioTrack = {
  id: string;
  type: 'audio';
  duration?: number;
  max_channels: number;
  max_channel_layout?: string;
  primary: boolean;
  language_code?: string;
};
export type Track = VideoTrack | AudioTrack;

// The video track comes from the probe; audio and text tracks from their rows. Assets made before
// tracks had rows keep the audio tracks their probe recorded.
const assetTracks = (asset: AssetRecord): Array<VideoTrack | AudioTrack | TrackJson> | undefined => {
  const probed = parseJson<Track[]>(asset.tracksJson);
  if (!probed && asset.tracks.length === 0) return undefined;
  const rows = [...asset.tracks].sort(compareTracks).map(serializeTrack);
  const hasAudioRows = asset.tracks.some((track) => track.type === 'audio');
  return [...(probed ?? []).filter((track) => track.type === 'video' || !hasAudioRows), ...rows];
};

const PROGRESS: Record<string, { state: string; progress: number }> = {
  ingesting: { state: 'ingesting', progress: 0 },
  transcoding: { state: 'transcoding', progress: 0 },
  completed: { state: 'completed', progress: 100 },
  errored: { state: 'errored', progress: -1 },
};

/** A span of a recording as Mux reports it: content from the publisher, or slate while it was away. */
export type RecordingTime = { started_at: string; duration: number; type: 'content' | 'slate' };

// A recording has no meaningful percentage while its broadcast runs; Mux reports -1.
const LIVE_PROGRESS = { state: 'live', progress: -1 };

const storedResolutionLabel = (tracks: Track[]): string => {
  const video = tracks.find((track): track is VideoTrack => track.type === 'video');
  if (!video) return 'Audio only';
  const shortSide = Math.min(video.max_width, video.max_height);
  if (shortSide < 720) return 'SD';
  if (shortSide < 1080) return 'HD';
  if (shortSide < 2160) return 'FHD';
  return 'UHD';
};

const parseJson = <T>(text: string | null): T | undefined => (text ? (JSON.parse(text) as T) : undefined);

export const serializePlaybackId = (playbackId: PlaybackIdRecord) => ({ id: playbackId.id, policy: playbackId.policy });

// What serialising needs beyond the record: the signed master URL (made by the service layer,
// which holds the signing key), present only while the master is ready and unexpired.
export type AssetLinks = { masterUrl?: string };

const masterJson = (asset: AssetRecord, links: AssetLinks) => {
  if (asset.masterAccess !== 'temporary' || asset.masterStatus === null) return undefined;
  if (asset.masterStatus === 'ready') return links.masterUrl ? { status: 'ready', url: links.masterUrl } : undefined;
  return { status: asset.masterStatus };
};

export const serializeAsset = (asset: AssetRecord, links: AssetLinks = {}) => {
  const master = masterJson(asset, links);
  const probedTracks = parseJson<Track[]>(asset.tracksJson);
  const tracks = assetTracks(asset);
  const meta = parseJson<Record<string, string>>(asset.metaJson);
  const errorMessages = parseJson<string[]>(asset.errorMessagesJson);
  const encodingTier = asset.encodingTier as EncodingTier;
  const staticRenditions = serializeStaticRenditions(asset.staticRenditions);
  const recordingTimes = parseJson<RecordingTime[]>(asset.recordingTimesJson);
  return {
    id: asset.id,
    created_at: unixSeconds(asset.createdAt),
    status: asset.status,
    progress: asset.isLive ? LIVE_PROGRESS : (PROGRESS[asset.progressState] ?? PROGRESS.ingesting),
    ...(asset.durationSeconds !== null && { duration: Math.round(asset.durationSeconds * 1e6) / 1e6 }),
    ...(asset.aspectRatio !== null && { aspect_ratio: asset.aspectRatio }),
    ...(probedTracks && { max_stored_resolution: storedResolutionLabel(probedTracks) }),
    ...(asset.resolutionTier !== null && { resolution_tier: asset.resolutionTier }),
    max_resolution_tier: asset.maxResolutionTier,
    ...(asset.maxFrameRate !== null && { max_stored_frame_rate: asset.maxFrameRate }),
    video_quality: videoQualityFor(encodingTier),
    encoding_tier: encodingTier,
    ...(asset.playbackIds.length > 0 && { playback_ids: asset.playbackIds.map(serializePlaybackId) }),
    ...(tracks && { tracks }),
    ...(asset.status === 'errored' && {
      errors: { type: asset.errorType ?? 'invalid_input', messages: errorMessages ?? [] },
    }),
    ...(asset.passthrough !== null && { passthrough: asset.passthrough }),
    ...(meta && { meta }),
    ...(asset.test && { test: true }),
    ...(asset.uploadId !== null && { upload_id: asset.uploadId }),
    ingest_type: asset.ingestType,
    mp4_support: asset.mp4Support,
    ...(staticRenditions && { static_renditions: staticRenditions }),
    master_access: asset.masterAccess,
    ...(master && { master }),
    ...(asset.sourceAssetId !== null && { source_asset_id: asset.sourceAssetId }),
    ...(asset.liveStreamId !== null && { live_stream_id: asset.liveStreamId, is_live: asset.isLive }),
    ...(recordingTimes && { recording_times: recordingTimes }),
    normalize_audio: false,
  };
};

export type AssetJson = ReturnType<typeof serializeAsset>;
