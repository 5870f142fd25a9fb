import { z } from 'zod';
import { unixSeconds } from './common';
import { serializePlaybackId, type PlaybackIdRecord } from './asset';
import {
  assetSettingsSchema,
  metaSchema,
  normalizeAssetSettings,
  passthroughSchema,
  requestedPlaybackPolicies,
  type AssetSettingsBody,
  type NormalizedAssetSettings,
  type PlaybackPolicy,
} from './asset-settings';
import { createSimulcastTargetSchema, normalizeSimulcastTarget, serializeSimulcastTarget, type NewSimulcastTarget, type SimulcastTargetRecord } from './simulcast-target';
import {
  embeddedLiveSubtitlesSchema,
  generatedLiveSubtitlesSchema,
  normalizeEmbeddedLiveSubtitles,
  normalizeGeneratedLiveSubtitles,
  parseEmbeddedLiveSubtitles,
  parseGeneratedLiveSubtitles,
} from './live-captions';
import { languageName } from './track';
import { MP4_SUPPORT_VALUES } from './static-rendition';
import { echoedAssetSettings } from './upload';

// Live streams on the wire (mux-api-2.md §6): the create and update bodies, the rules that turn
// them into stored values, and the LiveStream object.

export const LATENCY_MODES = ['standard', 'reduced', 'low'] as const;
export type LatencyMode = (typeof LATENCY_MODES)[number];
export const LIVE_STREAM_STATUSES = ['idle', 'active', 'disabled'] as const;
export type LiveStreamStatus = (typeof LIVE_STREAM_STATUSES)[number];
/** How a publisher is connected, Mux's active_ingest_protocol. */
export const LIVE_INGEST_PROTOCOLS = ['rtmp', 'rtmps', 'srt'] as const;
export type LiveIngestProtocol = (typeof LIVE_INGEST_PROTOCOLS)[number];

export const RECONNECT_WINDOW_MAX_SECONDS = 1800;
export const MAX_CONTINUOUS_DURATION_MIN_SECONDS = 60;
export const MAX_CONTINUOUS_DURATION_MAX_SECONDS = 43200;
/** Mux cuts test streams after five minutes. */
export const TEST_STREAM_MAX_SECONDS = 300;

/** Mux's documented default when `reconnect_window` is not sent: 60 s for standard, none for the others. */
export const defaultReconnectWindow = (latencyMode: LatencyMode): number => (latencyMode === 'standard' ? 60 : 0);

const reconnectWindowSchema = z
  .number({ error: 'must be a number of seconds' })
  .min(0, { error: 'must be at least 0 seconds' })
  .max(RECONNECT_WINDOW_MAX_SECONDS, { error: `must be at most ${RECONNECT_WINDOW_MAX_SECONDS} seconds (30 minutes)` });

const maxContinuousDurationSchema = z
  .number({ error: 'must be a number of seconds' })
  .int({ error: 'must be a whole number of seconds' })
  .min(MAX_CONTINUOUS_DURATION_MIN_SECONDS, { error: `must be at least ${MAX_CONTINUOUS_DURATION_MIN_SECONDS} seconds` })
  .max(MAX_CONTINUOUS_DURATION_MAX_SECONDS, { error: `must be at most ${MAX_CONTINUOUS_DURATION_MAX_SECONDS} seconds (12 hours)` });

const latencyModeSchema = z.enum(LATENCY_MODES, { error: 'must be "standard", "reduced" or "low"' });

const slateUrlSchema = z.union([z.literal(''), z.url({ protocol: /^https?$/ })], { error: 'must be an http(s) URL of an image' });

export const liveStreamMetaSchema = z.object({ title: metaSchema.shape.title });

export const createLiveStreamSchema = z.object({
  playback_policies: assetSettingsSchema.shape.playback_policies,
  playback_policy: assetSettingsSchema.shape.playback_policy,
  advanced_playback_policies: assetSettingsSchema.shape.advanced_playback_policies,
  new_asset_settings: assetSettingsSchema.optional(),
  reconnect_window: reconnectWindowSchema.optional(),
  use_slate_for_standard_latency: z.boolean().optional(),
  reconnect_slate_url: slateUrlSchema.optional(),
  passthrough: passthroughSchema.optional(),
  audio_only: z.boolean().optional(),
  latency_mode: latencyModeSchema.optional(),
  reduced_latency: z.boolean().optional(),
  low_latency: z.boolean().optional(),
  test: z.boolean().optional(),
  max_continuous_duration: maxContinuousDurationSchema.optional(),
  meta: liveStreamMetaSchema.optional(),
  simulcast_targets: z.array(createSimulcastTargetSchema, { error: 'must be an array of {url, stream_key?, passthrough?}' }).optional(),
  embedded_subtitles: embeddedLiveSubtitlesSchema.optional(),
  generated_subtitles: generatedLiveSubtitlesSchema.optional(),
  srt_passphrase: z.unknown().optional(),
});

export type CreateLiveStreamBody = z.infer<typeof createLiveStreamSchema>;

// Mux documents only these four for a stream's recording settings on PATCH; anything else is
// refused by name (`.strict()`) rather than dropped.
const updateNewAssetSettingsSchema = z
  .object({
    mp4_support: z.enum(MP4_SUPPORT_VALUES).optional(),
    master_access: z.enum(['none', 'temporary']).optional(),
    video_quality: z.enum(['basic', 'plus', 'premium']).optional(),
    meta: metaSchema.optional(),
  })
  .strict();

export const updateLiveStreamSchema = z.object({
  passthrough: passthroughSchema.optional(),
  latency_mode: latencyModeSchema.optional(),
  reconnect_window: reconnectWindowSchema.optional(),
  use_slate_for_standard_latency: z.boolean().optional(),
  reconnect_slate_url: slateUrlSchema.optional(),
  max_continuous_duration: maxContinuousDurationSchema.optional(),
  new_asset_settings: updateNewAssetSettingsSchema.optional(),
  meta: liveStreamMetaSchema.optional(),
});

export type UpdateLiveStreamBody = z.infer<typeof updateLiveStreamSchema>;

export const liveStaticRenditionsSchema = z.object({
  static_renditions: z.array(assetSettingsSchema.shape.static_renditions.unwrap().element, { error: 'must be an array of {resolution, passthrough?}' }),
});

export const createLivePlaybackIdSchema = z.object({
  policy: z.enum(['public', 'signed', 'drm'], { error: 'must be "public" or "signed"' }).optional(),
  drm_configuration_id: z.string().optional(),
});

export const listLiveStreamsQuerySchema = z.object({
  status: z.enum(LIVE_STREAM_STATUSES, { error: 'must be "idle", "active" or "disabled"' }).optional(),
  stream_key: z.string().optional(),
});

type Outcome<T> = { ok: true; value: T } | { ok: false; messages: string[] };

const LIVE_IS_SMART_ONLY =
  'new_asset_settings: live streams are smart tier only; video_quality "basic" (encoding_tier "baseline") is not available for their recordings, use "plus" or "premium"';

/**
 * A stream's recording settings: the asset options every recording is created with, checked
 * against what a recording can have. Returns them in the form Mux echoes (policies spelled
 * `playback_policies: [...]`), which is also the form stored and parsed again per recording.
 */
export const normalizeRecordingSettings = (body: AssetSettingsBody): Outcome<Record<string, unknown>> => {
  const problems: string[] = [];
  if (body.encoding_tier === 'baseline' || body.video_quality === 'basic') problems.push(LIVE_IS_SMART_ONLY);
  // The recording's media is the broadcast; these options describe media Keyframe would have to
  // add to or cut from it.
  const notForRecordings = (['input', 'inputs', 'copy_overlays'] as const).filter((key) => body[key] !== undefined);
  if (notForRecordings.length > 0) {
    problems.push(
      `new_asset_settings: ${notForRecordings.join(', ')} cannot be applied to a live stream's recording (watermarks, extra tracks and clips are not available for live recordings)`,
    );
  }
  if (problems.length > 0) return { ok: false, messages: problems };
  const normalized = normalizeAssetSettings(body, { inputUrl: 'forbidden' });
  if (!normalized.ok) return { ok: false, messages: normalized.messages.map((message) => `new_asset_settings: ${message}`) };
  return { ok: true, value: echoedAssetSettings(body, normalized.settings) };
};

/** The asset options each recording of a stream is created with (its stored `newAssetSettingsJson`). */
export const recordingAssetSettings = (newAssetSettingsJson: string): NormalizedAssetSettings => {
  const normalized = normalizeAssetSettings(assetSettingsSchema.parse(JSON.parse(newAssetSettingsJson)), { inputUrl: 'forbidden' });
  if (!normalized.ok) throw new Error(`stored live stream asset settings are invalid: ${normalized.messages.join('; ')}`);
  return normalized.settings;
};

/**
 * A new stream's stored values, the settings of its row (the stream key, ids and state are the
 * service's), with its latency mode checked, the playback policies of its playback IDs and its
 * simulcast targets (whose addresses the service still checks against its policy).
 */
export type NewLiveStreamSettings = Pick<
  LiveStreamRecord,
  | 'reconnectWindow'
  | 'maxContinuousDuration'
  | 'useSlateForStandardLatency'
  | 'reconnectSlateUrl'
  | 'generatedSubtitlesJson'
  | 'embeddedSubtitlesJson'
  | 'audioOnly'
  | 'passthrough'
  | 'metaJson'
  | 'test'
  | 'newAssetSettingsJson'
> & { latencyMode: LatencyMode; playbackPolicies: PlaybackPolicy[]; simulcastTargets: NewSimulcastTarget[] };

/** An embedded captions track's default name, as Mux shows one: "English CC". */
export const embeddedCaptionsName = (languageCode: string): string => `${languageName(languageCode) ?? languageCode} CC`;

const latencyFromBooleans = (body: { reduced_latency?: boolean; low_latency?: boolean }): LatencyMode | undefined =>
  body.low_latency ? 'low' : body.reduced_latency ? 'reduced' : undefined;

const metaJsonOf = (meta: { title?: string } | undefined): string | null =>
  meta && Object.keys(meta).length > 0 ? JSON.stringify(meta) : null;


export const normalizeCreateLiveStream = (body: CreateLiveStreamBody): Outcome<NewLiveStreamSettings> => {
  const problems: string[] = [];
  const unsupported = [
    body.srt_passphrase !== undefined && 'srt_passphrase: the SRT passphrase is generated by the server (read it from the live stream); it cannot be set',
  ].filter((message): message is string => typeof message === 'string');
  problems.push(...unsupported);

  const playbackPolicies = requestedPlaybackPolicies(body, problems);

  if (body.reduced_latency && body.low_latency) problems.push('reduced_latency and low_latency cannot both be true; send latency_mode');
  const fromBooleans = latencyFromBooleans(body);
  if (body.latency_mode && fromBooleans && body.latency_mode !== fromBooleans) {
    problems.push(`latency_mode "${body.latency_mode}" disagrees with ${fromBooleans}_latency: true (deprecated); send only latency_mode`);
  }
  const latencyMode = body.latency_mode ?? fromBooleans ?? 'standard';

  let newAssetSettingsJson: string | null = null;
  if (body.new_asset_settings) {
    const recording = normalizeRecordingSettings(body.new_asset_settings);
    if (recording.ok) newAssetSettingsJson = JSON.stringify(recording.value);
    else problems.push(...recording.messages);
  }
  const generatedSubtitles = normalizeGeneratedLiveSubtitles(body.generated_subtitles ?? []);
  if (!generatedSubtitles.ok) problems.push(...generatedSubtitles.messages);
  const embeddedSubtitles = normalizeEmbeddedLiveSubtitles(body.embedded_subtitles ?? [], embeddedCaptionsName);
  if (!embeddedSubtitles.ok) problems.push(...embeddedSubtitles.messages);
  if (problems.length > 0 || !generatedSubtitles.ok || !embeddedSubtitles.ok) return { ok: false, messages: problems };

  const test = body.test ?? false;
  const maxContinuousDuration = body.max_continuous_duration ?? MAX_CONTINUOUS_DURATION_MAX_SECONDS;
  return {
    ok: true,
    value: {
      playbackPolicies,
      simulcastTargets: (body.simulcast_targets ?? []).map(normalizeSimulcastTarget),
      latencyMode,
      reconnectWindow: body.reconnect_window ?? defaultReconnectWindow(latencyMode),
      maxContinuousDuration: test ? Math.min(maxContinuousDuration, TEST_STREAM_MAX_SECONDS) : maxContinuousDuration,
      useSlateForStandardLatency: body.use_slate_for_standard_latency ?? false,
      reconnectSlateUrl: body.reconnect_slate_url ? body.reconnect_slate_url : null,
      generatedSubtitlesJson: generatedSubtitles.json,
      embeddedSubtitlesJson: embeddedSubtitles.json,
      audioOnly: body.audio_only ?? false,
      passthrough: body.passthrough ?? null,
      metaJson: metaJsonOf(body.meta),
      test,
      newAssetSettingsJson,
    },
  };
};

/** What a PATCH changes, as stored values; fields not sent are absent. */
export type LiveStreamChanges = Partial<
  Pick<
    NewLiveStreamSettings,
    'latencyMode' | 'reconnectWindow' | 'maxContinuousDuration' | 'useSlateForStandardLatency' | 'reconnectSlateUrl' | 'passthrough' | 'metaJson' | 'newAssetSettingsJson'
  >
>;

type StreamBeforeUpdate = { status: string; latencyMode: string; test: boolean; newAssetSettingsJson: string | null };

const storedRecordingSettings = (json: string | null): AssetSettingsBody =>
  json ? assetSettingsSchema.parse(JSON.parse(json)) : {};

/**
 * The recording settings with `changes` laid over them, checked again as a whole (so mp4_support
 * cannot join static_renditions, and so on).
 */
export const mergeRecordingSettings = (current: string | null, changes: Partial<AssetSettingsBody>): Outcome<string> => {
  const stored = storedRecordingSettings(current);
  // A new video_quality replaces the stored tier under either name: a stream created with
  // encoding_tier "smart" may be PATCHed to video_quality "premium" without the two disagreeing.
  const { encoding_tier: _replacedTier, ...storedWithoutTier } = stored;
  const merged: AssetSettingsBody = { ...(changes.video_quality === undefined ? stored : storedWithoutTier), ...changes };
  const recording = normalizeRecordingSettings(merged);
  return recording.ok ? { ok: true, value: JSON.stringify(recording.value) } : recording;
};

/** The recording settings without static renditions; null stays null (nothing was recorded before either). */
export const withoutStaticRenditions = (current: string | null): string | null => {
  if (current === null) return null;
  const { static_renditions: _removed, ...rest } = storedRecordingSettings(current);
  return JSON.stringify(rest);
};

export const normalizeUpdateLiveStream = (stream: StreamBeforeUpdate, body: UpdateLiveStreamBody): Outcome<LiveStreamChanges> => {
  const problems: string[] = [];
  if (body.latency_mode !== undefined && body.latency_mode !== stream.latencyMode && stream.status === 'active') {
    problems.push('latency_mode: cannot be changed while the live stream is active; change it between broadcasts');
  }
  let newAssetSettingsJson: string | undefined;
  if (body.new_asset_settings) {
    if (body.new_asset_settings.video_quality === 'basic') problems.push(LIVE_IS_SMART_ONLY);
    else {
      const merged = mergeRecordingSettings(stream.newAssetSettingsJson, body.new_asset_settings);
      if (merged.ok) newAssetSettingsJson = merged.value;
      else problems.push(...merged.messages);
    }
  }
  if (problems.length > 0) return { ok: false, messages: problems };
  const maxContinuousDuration =
    body.max_continuous_duration !== undefined && stream.test
      ? Math.min(body.max_continuous_duration, TEST_STREAM_MAX_SECONDS)
      : body.max_continuous_duration;
  return {
    ok: true,
    value: {
      ...(body.latency_mode !== undefined && { latencyMode: body.latency_mode }),
      ...(body.reconnect_window !== undefined && { reconnectWindow: body.reconnect_window }),
      ...(maxContinuousDuration !== undefined && { maxContinuousDuration }),
      ...(body.use_slate_for_standard_latency !== undefined && { useSlateForStandardLatency: body.use_slate_for_standard_latency }),
      // `""` clears the slate, as on Mux.
      ...(body.reconnect_slate_url !== undefined && { reconnectSlateUrl: body.reconnect_slate_url || null }),
      ...(body.passthrough !== undefined && { passthrough: body.passthrough === '' ? null : body.passthrough }),
      ...(body.meta !== undefined && { metaJson: metaJsonOf(body.meta) }),
      ...(newAssetSettingsJson !== undefined && { newAssetSettingsJson }),
    },
  };
};

export type LiveStreamRecord = {
  id: string;
  streamKey: string;
  srtPassphrase: string | null;
  status: string;
  latencyMode: string;
  reconnectWindow: number;
  maxContinuousDuration: number;
  useSlateForStandardLatency: boolean;
  reconnectSlateUrl: string | null;
  generatedSubtitlesJson: string | null;
  embeddedSubtitlesJson: string | null;
  audioOnly: boolean;
  passthrough: string | null;
  metaJson: string | null;
  test: boolean;
  newAssetSettingsJson: string | null;
  activeAssetId: string | null;
  recentAssetIdsJson: string;
  connectedAt: Date | null;
  ingestProtocol: string | null;
  createdAt: Date;
  playbackIds: PlaybackIdRecord[];
  simulcastTargets: SimulcastTargetRecord[];
};

const parseJson = <T>(text: string | null): T | undefined => (text ? (JSON.parse(text) as T) : undefined);

// Rows connected before the protocol was recorded were RTMP, the only ingest then.
const activeIngestProtocol = (stored: string | null): LiveIngestProtocol => LIVE_INGEST_PROTOCOLS.find((protocol) => protocol === stored) ?? 'rtmp';

// Maps stored live streams to the Mux wire format (mux-api-2.md §6.1).
export const serializeLiveStream = (stream: LiveStreamRecord) => {
  const meta = parseJson<Record<string, string>>(stream.metaJson);
  const newAssetSettings = parseJson<Record<string, unknown>>(stream.newAssetSettingsJson);
  const recentAssetIds = parseJson<string[]>(stream.recentAssetIdsJson) ?? [];
  const generatedSubtitles = parseGeneratedLiveSubtitles(stream.generatedSubtitlesJson);
  const embeddedSubtitles = parseEmbeddedLiveSubtitles(stream.embeddedSubtitlesJson);
  return {
    id: stream.id,
    created_at: unixSeconds(stream.createdAt),
    stream_key: stream.streamKey,
    ...(stream.srtPassphrase !== null && { srt_passphrase: stream.srtPassphrase }),
    status: stream.status as LiveStreamStatus,
    ...(stream.playbackIds.length > 0 && { playback_ids: stream.playbackIds.map(serializePlaybackId) }),
    ...(newAssetSettings && { new_asset_settings: newAssetSettings }),
    reconnect_window: stream.reconnectWindow,
    use_slate_for_standard_latency: stream.useSlateForStandardLatency,
    ...(stream.reconnectSlateUrl !== null && { reconnect_slate_url: stream.reconnectSlateUrl }),
    latency_mode: stream.latencyMode as LatencyMode,
    low_latency: stream.latencyMode === 'low',
    reduced_latency: stream.latencyMode === 'reduced',
    max_continuous_duration: stream.maxContinuousDuration,
    ...(recentAssetIds.length > 0 && { recent_asset_ids: recentAssetIds }),
    ...(stream.activeAssetId !== null && { active_asset_id: stream.activeAssetId }),
    ...(stream.connectedAt !== null && stream.status === 'active' && { active_ingest_protocol: activeIngestProtocol(stream.ingestProtocol) }),
    ...(embeddedSubtitles.length > 0 && { embedded_subtitles: embeddedSubtitles }),
    ...(generatedSubtitles.length > 0 && { generated_subtitles: generatedSubtitles }),
    ...(stream.simulcastTargets.length > 0 && { simulcast_targets: stream.simulcastTargets.map(serializeSimulcastTarget) }),
    ...(stream.audioOnly && { audio_only: true }),
    ...(stream.passthrough !== null && { passthrough: stream.passthrough }),
    ...(meta && { meta }),
    ...(stream.test && { test: true }),
  };
};

export type LiveStreamJson = ReturnType<typeof serializeLiveStream>;
