import { ApiError } from '../errors/api-error';

// The Data API's common query parameters (§7.5): `timeframe[]` (two epoch seconds, or one
// `N:minutes|hours|days` back from now; 24:hours by default) and `filters[]` (`dimension:value`,
// `!dimension:value`) over the dimensions below, each a stored column of a view.

export const DIMENSIONS = {
  asset_id: 'assetId',
  playback_id: 'playbackId',
  live_stream_id: 'liveStreamId',
  video_id: 'videoId',
  video_title: 'videoTitle',
  browser: 'viewerBrowser',
  browser_version: 'viewerBrowserVersion',
  operating_system: 'viewerOs',
  operating_system_version: 'viewerOsVersion',
  viewer_device_category: 'viewerDeviceType',
  player_name: 'playerName',
  player_software: 'playerSoftware',
  player_error_code: 'errorCode',
  playback_failure: 'playbackFailure',
  video_startup_failure: 'videoStartupFailure',
  exit_before_video_start: 'exitBeforeVideoStart',
} as const;

export type Dimension = keyof typeof DIMENSIONS;
export type ViewColumn = (typeof DIMENSIONS)[Dimension];
export const BOOLEAN_COLUMNS: ReadonlySet<ViewColumn> = new Set(['playbackFailure', 'videoStartupFailure', 'exitBeforeVideoStart']);

export type ViewFilter = { column: ViewColumn; value: string | boolean; exclude: boolean };

export const isDimension = (name: string): name is Dimension => Object.hasOwn(DIMENSIONS, name);

export const unknownDimension = (name: string) =>
  new ApiError('invalid_parameters', `"${name}" is not a supported dimension (one of: ${Object.keys(DIMENSIONS).join(', ')})`);

export const parseFilters = (filters: readonly string[] = []): ViewFilter[] =>
  filters.map((filter) => {
    const exclude = filter.startsWith('!');
    const body = exclude ? filter.slice(1) : filter;
    const separator = body.indexOf(':');
    if (separator < 1) throw new ApiError('invalid_parameters', `filter "${filter}" must be dimension:value or !dimension:value`);
    const dimension = body.slice(0, separator);
    if (!isDimension(dimension)) throw unknownDimension(dimension);
    const column = DIMENSIONS[dimension];
    const raw = body.slice(separator + 1);
    if (BOOLEAN_COLUMNS.has(column) && raw !== 'true' && raw !== 'false') throw new ApiError('invalid_parameters', `filter "${filter}": ${dimension} is true or false`);
    return { column, value: BOOLEAN_COLUMNS.has(column) ? raw === 'true' : raw, exclude };
  });

const UNIT_SECONDS: Record<string, number> = { minute: 60, minutes: 60, hour: 3_600, hours: 3_600, day: 86_400, days: 86_400 };
const DEFAULT_TIMEFRAME_SECONDS = 24 * 3_600;

/** `[start, end]` in epoch seconds. */
export const parseTimeframe = (timeframe: readonly string[] = [], nowMs = Date.now()): [number, number] => {
  const now = Math.floor(nowMs / 1000);
  const values = timeframe.filter((value) => value !== '');
  if (values.length === 0) return [now - DEFAULT_TIMEFRAME_SECONDS, now];
  if (values.length === 1) {
    const match = /^(\d{1,6}):([a-z]+)$/.exec(values[0] as string);
    const unit = match ? UNIT_SECONDS[match[2] as string] : undefined;
    if (!match || unit === undefined || Number(match[1]) === 0) {
      throw new ApiError('invalid_parameters', `timeframe "${values[0]}" must be N:minutes, N:hours or N:days, or two epoch seconds`);
    }
    return [now - Number(match[1]) * unit, now];
  }
  if (values.length === 2 && values.every((value) => /^\d{1,12}$/.test(value))) {
    const [a, b] = values.map(Number) as [number, number];
    return [Math.min(a, b), Math.max(a, b)];
  }
  throw new ApiError('invalid_parameters', 'timeframe must be two epoch seconds or one duration such as 24:hours');
};
