import { z } from 'zod';
import { MEASUREMENTS } from '../analytics/measurements';
import type { ViewState } from '../analytics/view-state';
import { reachedFirstFrame, type ViewSummary } from '../analytics/view-summary';

// The Data API's query parameters as routes receive them (arrays as `name[]=`, the way the SDK's
// `qs` sends them; a bare `name=` is taken too) and the video view shapes it answers with: Mux's
// field names (§7.5, @mux/mux-node `resources/data/video-views`), values Keyframe does not
// collect (geography, ads, scores) as null.

/** `timeframe[]` / `filters[]` (or without brackets) from a query string. */
export const arrayParam = (searchParams: URLSearchParams, name: string): string[] => [...searchParams.getAll(`${name}[]`), ...searchParams.getAll(name)];

const positiveInt = (max: number) => z.coerce.number().int().min(1).max(max);

export const measurementParam = z.enum(MEASUREMENTS).optional();

export const breakdownQuerySchema = z.object({
  group_by: z.string().min(1, { error: 'group_by is required' }),
  measurement: measurementParam,
  order_by: z.enum(['negative_impact', 'value', 'views', 'field']).optional(),
  order_direction: z.enum(['asc', 'desc']).optional(),
  limit: positiveInt(10_000).optional(),
  page: positiveInt(1_000_000).optional(),
});

export const timeseriesQuerySchema = z.object({
  group_by: z.enum(['minute', 'ten_minutes', 'hour', 'day']).optional(),
  measurement: measurementParam,
});

export const overallQuerySchema = z.object({ measurement: measurementParam });

export const videoViewsQuerySchema = z.object({
  limit: positiveInt(1_000).optional(),
  page: positiveInt(1_000_000).optional(),
  viewer_id: z.string().max(256).optional(),
  error_id: z.string().max(32).optional(),
  order_direction: z.enum(['asc', 'desc']).optional(),
});

export const metricIdParams = z.object({ metricId: z.string().min(1).max(64) });

export const dimensionIdParams = z.object({ dimensionId: z.string().min(1).max(64) });

export const dimensionValuesQuerySchema = z.object({
  limit: positiveInt(10_000).optional(),
  page: positiveInt(1_000_000).optional(),
});

export const videoViewIdParams = z.object({ viewId: z.string().regex(/^[0-9A-Za-z]{1,64}$/, { error: 'video view id was invalid' }) });

/** The stored row a view's shapes are made from (with its merged beacon state). */
export type StoredVideoView = Omit<ViewSummary, 'lastBeaconAt' | 'closed' | 'videoId' | 'playerName' | 'playerSoftware' | 'muxViewerId'> & {
  id: string;
  viewId: string;
  playbackId: string | null;
  assetId: string | null;
  liveStreamId: string | null;
  createdAt: Date;
  updatedAt: Date;
};

/** Mux's `AbridgedVideoView`. */
export type VideoViewSummary = {
  id: string;
  country_code: string | null;
  error_type_id: number | null;
  playback_failure: boolean;
  player_error_code: string | null;
  player_error_message: string | null;
  total_row_count: number;
  video_title: string | null;
  view_end: string;
  view_start: string;
  viewer_application_name: string | null;
  viewer_experience_score: number | null;
  viewer_os_family: string | null;
  watch_time: number | null;
};

export type VideoViewEvent = { name: string; viewer_time: number; playback_time: number; event_time: number; details: Record<string, unknown> };

/** Mux's video view (`VideoViewResponse.Data`), the fields Keyframe knows, plus `rendition_heights` and `player_error_context`. */
export type VideoViewDetail = Record<string, unknown> & {
  id: string;
  view_id: string;
  view_start: string;
  view_end: string;
  events: VideoViewEvent[];
};

/** ISO-8601 to the second, as Mux writes view times. */
export const isoSeconds = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

export const serializeVideoViewSummary = (view: StoredVideoView, state: ViewState, totalRowCount: number): VideoViewSummary => ({
  id: view.id,
  country_code: null,
  error_type_id: view.errorTypeId,
  playback_failure: view.playbackFailure,
  player_error_code: view.errorCode,
  player_error_message: state.lastError?.message ?? null,
  total_row_count: totalRowCount,
  video_title: view.videoTitle,
  view_end: isoSeconds(view.viewEnd),
  view_start: isoSeconds(view.viewStart),
  viewer_application_name: view.viewerBrowser,
  viewer_experience_score: null,
  viewer_os_family: view.viewerOs,
  watch_time: view.watchTimeMs,
});

const text = (value: unknown): string | null => (value === null || value === undefined || value === '' ? null : String(value));
const numeric = (value: unknown): number | null => {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(number) ? number : null;
};
const flag = (value: unknown): boolean => value === true || value === 'true' || value === 1;

// Fields sent by the player that the detail passes through under their own names.
const PASSED_TEXT = [
  'player_name', 'player_version', 'player_software', 'player_software_version', 'player_mux_plugin_name', 'player_mux_plugin_version',
  'player_instance_id', 'player_language', 'player_poster', 'player_source_type', 'player_source_stream_type', 'mux_embed', 'mux_embed_version',
  'page_type', 'video_id', 'video_series', 'video_producer', 'video_content_type', 'video_language', 'video_variant_id', 'video_variant_name',
  'video_encoding_variant', 'video_stream_type', 'video_affiliate', 'video_brand', 'video_creator_id', 'video_codec', 'audio_codec',
  'viewer_application_engine', 'viewer_os_architecture', 'viewer_device_manufacturer', 'viewer_device_model', 'viewer_device_name',
  'viewer_connection_type', 'viewer_user_id', 'viewer_plan', 'viewer_plan_status', 'viewer_plan_category', 'view_session_id',
  'client_application_name', 'client_application_version', 'experiment_name', 'sub_property_id', 'view_drm_type', 'view_cdn_edge_pop',
  'view_cdn_origin', 'video_dynamic_range_type',
  ...Array.from({ length: 10 }, (_, index) => `custom_${index + 1}`),
];
const PASSED_NUMBERS = [
  'player_width', 'player_height', 'player_source_width', 'player_source_height', 'player_source_duration', 'player_startup_time',
  'player_load_time', 'page_load_time', 'video_duration', 'video_source_width', 'video_source_height', 'video_source_bitrate',
  'video_source_fps', 'view_max_request_latency', 'view_average_request_latency', 'view_average_request_throughput',
  'view_dropped_frame_count', 'view_total_content_playback_time', 'player_view_count',
];
const PASSED_NUMBER_STRINGS = ['view_max_playhead_position', 'view_max_upscale_percentage', 'view_max_downscale_percentage', 'view_total_upscaling', 'view_total_downscaling'];

const eventsOf = (state: ViewState): VideoViewEvent[] =>
  state.events.map((event) => ({
    name: event.name,
    viewer_time: event.viewer_time ?? event.event_time,
    playback_time: Math.round(event.playback_time ?? 0),
    event_time: event.event_time,
    details: event.details,
  }));

export const serializeVideoViewDetail = (view: StoredVideoView, state: ViewState): VideoViewDetail => {
  const { fields } = state;
  const passed: Record<string, unknown> = {};
  for (const key of PASSED_TEXT) passed[key] = text(fields[key]);
  for (const key of PASSED_NUMBERS) passed[key] = numeric(fields[key]);
  for (const key of PASSED_NUMBER_STRINGS) passed[key] = numeric(fields[key]) === null ? null : String(numeric(fields[key]));
  const sourceUrl = text(fields.video_source_url) ?? text(fields.player_source_url);
  return {
    ...passed,
    id: view.id,
    view_id: view.viewId,
    environment_id: 'keyframe',
    property_id: 0,
    asset_id: view.assetId,
    playback_id: view.playbackId,
    live_stream_id: view.liveStreamId,
    video_title: view.videoTitle,
    mux_api_version: text(fields.mux_api_version) ?? '2.1',
    mux_viewer_id: text(fields.mux_viewer_id) ?? '',
    session_id: text(fields.session_id) ?? '',
    page_url: text(fields.page_url),
    player_source_url: sourceUrl,
    player_source_host_name: sourceUrl ? hostOf(sourceUrl) : null,
    player_autoplay: flag(fields.player_autoplay),
    player_preload: flag(fields.player_preload),
    player_remote_played: fields.player_remote_played === undefined ? null : flag(fields.player_remote_played),
    player_error_code: view.errorCode,
    player_error_message: state.lastError?.message ?? null,
    player_error_context: state.lastError?.context ?? null,
    viewer_application_name: view.viewerBrowser,
    viewer_application_version: view.viewerBrowserVersion,
    viewer_os_family: view.viewerOs,
    viewer_os_version: view.viewerOsVersion,
    viewer_device_category: view.viewerDeviceType,
    viewer_user_agent: null,
    country_code: null,
    view_start: isoSeconds(view.viewStart),
    view_end: isoSeconds(view.viewEnd),
    short_time: isoSeconds(view.viewStart),
    inserted_at: isoSeconds(view.createdAt),
    updated_at: isoSeconds(view.updatedAt),
    watch_time: view.watchTimeMs,
    view_playing_time: String(view.playingTimeMs),
    time_to_first_frame: view.startupTimeMs,
    view_content_startup_time: view.startupTimeMs,
    buffering_count: view.rebufferCount,
    buffering_duration: view.rebufferDurationMs,
    rebuffer_percentage: view.rebufferPercentage === null ? null : String(view.rebufferPercentage),
    view_seek_count: view.seekCount,
    view_seek_duration: numeric(fields.view_seek_duration),
    watched: reachedFirstFrame(state),
    playback_failure: view.playbackFailure,
    playback_failure_error_type_id: view.playbackFailure ? view.errorTypeId : null,
    video_startup_failure: view.videoStartupFailure,
    exit_before_video_start: view.exitBeforeVideoStart,
    error_type_id: view.errorTypeId,
    view_error_id: view.errorTypeId,
    view_has_ad: false,
    view_dropped: false,
    used_fullscreen: false,
    used_pip: false,
    used_captions: false,
    time_shift_enabled: false,
    long_rebuffering: false,
    long_resume: false,
    video_cdn_trace: [],
    rendition_change_count: state.events.filter((event) => event.name === 'renditionchange').length,
    rendition_heights: state.renditionHeights,
    events: eventsOf(state),
  };
};

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
};
