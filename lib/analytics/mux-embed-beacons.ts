import { FIRST_WORDS, OTHER_WORDS } from './key-words';

// Beacon bodies shaped as mux-embed 5.19 sends them, for tests and the benchmark: keys abbreviated
// by its encoder (function `ye` in dist/mux.mjs, re-stated), the full state on the first event and
// on viewend, only changed fields (plus the always-sent ones) in between.

const wordCodes = Object.fromEntries(Object.entries(OTHER_WORDS).map(([code, word]) => [word, code]));
const firstCodes = Object.fromEntries(Object.entries(FIRST_WORDS).map(([code, word]) => [word, code]));

export const encodeKey = (key: string): string => {
  const [first = '', ...rest] = key.split('_');
  let encoded = firstCodes[first] ?? `${first}_`;
  for (const word of rest) encoded += wordCodes[word] ?? (Number.isInteger(Number(word)) ? word : `_${word}_`);
  return encoded;
};

type Value = string | number | boolean;

export const encodeEvent = (event: Record<string, Value | undefined>): Record<string, Value> => {
  const plain: Record<string, Value> = {};
  const urls: Record<string, Value> = {};
  for (const [key, value] of Object.entries(event)) {
    if (value === undefined) continue;
    if (key.split('_').includes('url')) urls[encodeKey(key)] = value;
    else plain[encodeKey(key)] = value;
  }
  return { ...plain, ...urls };
};

const ALWAYS_SENT = new Set([
  'env_key',
  'view_id',
  'view_sequence_number',
  'player_sequence_number',
  'beacon_domain',
  'player_playhead_time',
  'viewer_time',
  'mux_api_version',
  'event',
  'video_id',
  'player_instance_id',
  'player_error_code',
  'player_error_message',
  'player_error_context',
  'player_error_severity',
  'player_error_business_exception',
  'view_playing_time_ms_cumulative',
  'ad_playing_time_ms_cumulative',
]);

export type SimulatedViewOptions = {
  viewId: string;
  sourceUrl: string;
  pageUrl?: string;
  videoId?: string;
  videoTitle?: string;
  muxViewerId?: string;
  startedAt?: number;
  extra?: Record<string, Value>;
};

/** One player view: `event(name, fields)` returns the next event as mux-embed would encode it. */
export const simulatedView = (options: SimulatedViewOptions) => {
  const state: Record<string, Value | undefined> = {
    mux_api_version: '2.1',
    mux_embed: 'mux-embed',
    mux_embed_version: '5.19.0',
    player_software_name: 'mux-player',
    player_software_version: '3.14.0',
    player_mux_plugin_name: 'mux-player',
    player_mux_plugin_version: '3.14.0',
    player_name: 'keyframe-test',
    player_instance_id: `${options.viewId}-player`,
    beacon_domain: 'localhost',
    view_id: options.viewId,
    video_id: options.videoId,
    video_title: options.videoTitle,
    video_source_url: options.sourceUrl,
    page_url: options.pageUrl ?? 'http://localhost/page?secret=1',
    mux_viewer_id: options.muxViewerId ?? `${options.viewId}-viewer`,
    session_id: `${options.viewId}-session`,
    player_playhead_time: 0,
    view_playing_time_ms_cumulative: 0,
    ...options.extra,
  };
  let previous: Record<string, Value | undefined> = {};
  let sequence = 0;
  let clock = options.startedAt ?? Date.now();
  return {
    /** Advances the player's clock. */
    wait(ms: number) {
      clock += ms;
    },
    get now() {
      return clock;
    },
    event(name: string, fields: Record<string, Value> = {}): Record<string, Value> {
      sequence += 1;
      Object.assign(state, fields, { event: name, view_sequence_number: sequence, player_sequence_number: sequence, viewer_time: clock });
      const full = sequence === 1 || name === 'viewstart' || name === 'viewend';
      const sent: Record<string, Value | undefined> = {};
      for (const [key, value] of Object.entries(state)) {
        if (full || ALWAYS_SENT.has(key) || previous[key] !== value) sent[key] = value;
      }
      previous = { ...state };
      return encodeEvent(sent);
    },
  };
};

export const beaconBody = (events: Record<string, Value>[], transmissionTimestamp = Date.now()): string =>
  JSON.stringify({ metadata: { transmission_timestamp: transmissionTimestamp }, events });
