import type { BeaconScalar } from './beacon-schema';
import { numberOf, stringOf, viewEndedByPlayer, type ViewState } from './view-state';
import { playbackIdInSourceUrl } from './source-url';

// The columns the Data API reads, derived from a view's merged state. The player's own cumulative
// aggregates are trusted as sent (the latest value wins, §7.3); only what it did not send is
// derived from the events. Times in ms; rebuffer percentage as a fraction (0.02 = 2 %), as Mux.

export type ViewSummary = {
  viewStart: Date;
  viewEnd: Date;
  lastBeaconAt: Date;
  closed: boolean;
  videoId: string | null;
  videoTitle: string | null;
  viewerBrowser: string | null;
  viewerBrowserVersion: string | null;
  viewerOs: string | null;
  viewerOsVersion: string | null;
  viewerDeviceType: string | null;
  playerName: string | null;
  playerSoftware: string | null;
  muxViewerId: string | null;
  watchTimeMs: number;
  playingTimeMs: number;
  startupTimeMs: number | null;
  rebufferCount: number;
  rebufferDurationMs: number;
  rebufferPercentage: number | null;
  seekCount: number;
  seekLatencyMs: number | null;
  errorTypeId: number | null;
  errorCode: string | null;
  playbackFailure: boolean;
  videoStartupFailure: boolean;
  exitBeforeVideoStart: boolean;
};

const INT_MAX = 2_147_483_647;
const toInt = (value: number) => Math.min(INT_MAX, Math.max(0, Math.round(value)));

/** Mux groups errors by an integer id; here a stable one per error code (the code itself when numeric). */
export const errorTypeIdOf = (code: string | null): number | null => {
  if (code === null) return null;
  if (/^\d{1,9}$/.test(code)) return Number(code);
  let hash = 0;
  for (const char of code) hash = (Math.imul(hash, 31) + (char.codePointAt(0) ?? 0)) | 0;
  return 1_000_000_000 + (Math.abs(hash) % 1_000_000_000);
};

/** The playback IDs a view's fields may name: its source URL's, and its video_id. */
export const playbackIdCandidatesIn = (fields: Readonly<Record<string, BeaconScalar>>): string[] => {
  const fromSource = playbackIdInSourceUrl(stringOf(fields.video_source_url) ?? stringOf(fields.player_source_url));
  const videoId = stringOf(fields.video_id);
  return [...new Set([fromSource, videoId].filter((id): id is string => id !== null && /^[0-9A-Za-z]{20,64}$/.test(id)))];
};

export const playbackIdCandidates = (state: ViewState): string[] => playbackIdCandidatesIn(state.fields);

/** Whether the view reached its first frame. */
export const reachedFirstFrame = (state: ViewState): boolean =>
  state.firstPlayingSequence !== null || numberOf(state.fields.view_time_to_first_frame) !== null || (numberOf(state.fields.view_playing_time_ms_cumulative) ?? 0) > 0;

/** `closedByInactivity`: the view was closed for lack of beacons (the player never sent viewend). */
export const summarizeView = (state: ViewState, { closedByInactivity = false } = {}): ViewSummary => {
  const { fields } = state;
  const agent = state.agent;
  const watchTime = numberOf(fields.view_watch_time) ?? Math.max(0, state.lastEventAt - state.startedAt);
  const derivedStartup =
    state.viewStartViewerTime !== null && state.firstPlayingViewerTime !== null ? Math.max(0, state.firstPlayingViewerTime - state.viewStartViewerTime) : null;
  const startup = numberOf(fields.view_time_to_first_frame) ?? derivedStartup;
  const rebufferDuration = numberOf(fields.view_rebuffer_duration) ?? 0;
  const seekCount = numberOf(fields.view_seek_count) ?? state.seeks;
  const seekDuration = numberOf(fields.view_seek_duration);
  const firstFrame = reachedFirstFrame(state);
  const startupFailure = state.firstFatalErrorSequence !== null && (state.firstPlayingSequence === null || state.firstFatalErrorSequence < state.firstPlayingSequence) && !firstFrame;
  const closed = closedByInactivity || viewEndedByPlayer(state);
  const errorCode = state.lastError?.code ?? null;
  return {
    viewStart: new Date(state.startedAt),
    viewEnd: new Date(state.lastEventAt),
    lastBeaconAt: new Date(state.lastBeaconAt),
    closed,
    videoId: stringOf(fields.video_id),
    videoTitle: stringOf(fields.video_title),
    viewerBrowser: stringOf(fields.viewer_application_name) ?? agent?.browser ?? null,
    viewerBrowserVersion: stringOf(fields.viewer_application_version) ?? agent?.browserVersion ?? null,
    viewerOs: stringOf(fields.viewer_os_family) ?? agent?.os ?? null,
    viewerOsVersion: stringOf(fields.viewer_os_version) ?? agent?.osVersion ?? null,
    viewerDeviceType: stringOf(fields.viewer_device_category) ?? agent?.deviceType ?? null,
    playerName: stringOf(fields.player_name),
    playerSoftware: stringOf(fields.player_software_name) ?? stringOf(fields.player_software),
    muxViewerId: stringOf(fields.mux_viewer_id),
    watchTimeMs: toInt(watchTime),
    playingTimeMs: toInt(numberOf(fields.view_playing_time_ms_cumulative) ?? 0),
    startupTimeMs: startup === null ? null : toInt(startup),
    rebufferCount: toInt(numberOf(fields.view_rebuffer_count) ?? state.rebufferStarts),
    rebufferDurationMs: toInt(rebufferDuration),
    rebufferPercentage: numberOf(fields.view_rebuffer_percentage) ?? (watchTime > 0 ? rebufferDuration / watchTime : null),
    seekCount: toInt(seekCount),
    seekLatencyMs: seekCount > 0 && seekDuration !== null ? seekDuration / seekCount : null,
    errorTypeId: errorTypeIdOf(errorCode),
    errorCode,
    playbackFailure: state.fatalErrors > 0,
    videoStartupFailure: startupFailure,
    exitBeforeVideoStart: closed && state.playRequested && !firstFrame && !startupFailure,
  };
};
