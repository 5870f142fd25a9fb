import type { BeaconEvent, BeaconScalar } from './beacon-schema';
import { addSequence, hasSequence, type SequenceRanges } from './sequence-ranges';
import { withoutQuery } from './source-url';
import type { ViewerAgent } from './user-agent';

// A view as its beacons describe it. After the first event mux-embed sends only the fields that
// changed (§7.2), so the fields are merged forward in view_sequence_number order: a later event's
// value wins; an event older than what is already merged (a retry that arrived late, or another
// node's share of the view) only fills fields still missing. An event seen before (same sequence
// number) changes nothing. Everything here is JSON, stored as the view's `stateJson`.

export type ViewEventRecord = {
  name: string;
  sequence: number;
  viewer_time: number | null;
  playback_time: number | null;
  /** The server's clock (ms epoch). */
  event_time: number;
  details: Record<string, BeaconScalar>;
};

export type ViewError = { sequence: number; code: string | null; message: string | null; context: string | null };

export type ViewState = {
  viewId: string;
  fields: Record<string, BeaconScalar>;
  lastSequence: number;
  lastEventName: string;
  sequences: SequenceRanges;
  /** Server clock (ms epoch) of the earliest and latest events, and of the latest beacon. */
  startedAt: number;
  lastEventAt: number;
  lastBeaconAt: number;
  viewStartViewerTime: number | null;
  firstPlayingViewerTime: number | null;
  firstPlayingSequence: number | null;
  playRequested: boolean;
  rebufferStarts: number;
  seeks: number;
  fatalErrors: number;
  firstFatalErrorSequence: number | null;
  lastError: ViewError | null;
  renditionHeights: number[];
  events: ViewEventRecord[];
  /** From the User-Agent of the first beacon, for when the beacons carry no viewer_* fields. */
  agent: ViewerAgent | null;
};

export type BeaconContext = {
  /** When the beacon arrived (server clock, ms epoch). */
  receivedAt: number;
  /** metadata.transmission_timestamp: the player's clock when it sent the beacon. */
  transmissionTimestamp: number | undefined;
  agent: ViewerAgent | null;
};

export const MAX_VIEW_EVENTS = 200;
const KEPT_FIRST_EVENTS = MAX_VIEW_EVENTS / 2;
const MAX_FIELDS = 400;
const MAX_STRING_LENGTH = 2_000;
const MAX_RENDITION_HEIGHTS = 16;
const DETAIL_FIELDS = [
  'player_error_code',
  'player_error_message',
  'player_error_context',
  'player_error_severity',
  'video_source_height',
  'video_source_width',
  'video_source_bitrate',
  'request_type',
  'request_error',
  'request_response_code',
  'request_hostname',
];

const isUrlKey = (key: string) => key.split('_').includes('url');

const storable = (key: string, value: BeaconScalar): BeaconScalar => {
  if (typeof value !== 'string') return value;
  const text = isUrlKey(key) ? withoutQuery(value) : value;
  return text.length > MAX_STRING_LENGTH ? text.slice(0, MAX_STRING_LENGTH) : text;
};

const numberOf = (value: BeaconScalar | undefined): number | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
};

const stringOf = (value: BeaconScalar | undefined): string | null => (value === null || value === undefined || value === '' ? null : String(value));

export const emptyViewState = (viewId: string, at: number): ViewState => ({
  viewId,
  fields: {},
  lastSequence: -1,
  lastEventName: '',
  sequences: [],
  startedAt: at,
  lastEventAt: at,
  lastBeaconAt: 0,
  viewStartViewerTime: null,
  firstPlayingViewerTime: null,
  firstPlayingSequence: null,
  playRequested: false,
  rebufferStarts: 0,
  seeks: 0,
  fatalErrors: 0,
  firstFatalErrorSequence: null,
  lastError: null,
  renditionHeights: [],
  events: [],
  agent: null,
});

const minOrNull = (current: number | null, value: number | null) => (value === null ? current : current === null ? value : Math.min(current, value));

const mergeFields = (state: ViewState, event: BeaconEvent, newest: boolean) => {
  for (const [key, value] of Object.entries(event.fields)) {
    const known = key in state.fields;
    if (!known && Object.keys(state.fields).length >= MAX_FIELDS) continue;
    if (newest || !known) state.fields[key] = storable(key, value);
  }
};

const recordEvent = (state: ViewState, event: BeaconEvent, eventTime: number) => {
  const details: Record<string, BeaconScalar> = {};
  for (const key of DETAIL_FIELDS) if (key in event.fields) details[key] = storable(key, event.fields[key] as BeaconScalar);
  const record: ViewEventRecord = {
    name: event.name,
    sequence: event.sequence,
    viewer_time: event.viewerTime ?? null,
    playback_time: numberOf(event.fields.player_playhead_time),
    event_time: eventTime,
    details,
  };
  let index = state.events.length;
  while (index > 0 && (state.events[index - 1] as ViewEventRecord).sequence > event.sequence) index -= 1;
  state.events.splice(index, 0, record);
  // The start of a view (startup) and its latest events are what a reader looks for.
  while (state.events.length > MAX_VIEW_EVENTS) state.events.splice(KEPT_FIRST_EVENTS, 1);
};

const noteEvent = (state: ViewState, event: BeaconEvent) => {
  const viewerTime = event.viewerTime ?? null;
  switch (event.name) {
    case 'viewstart':
      state.viewStartViewerTime = minOrNull(state.viewStartViewerTime, viewerTime);
      break;
    case 'play':
      state.playRequested = true;
      break;
    case 'playing':
      state.playRequested = true;
      state.firstPlayingViewerTime = minOrNull(state.firstPlayingViewerTime, viewerTime);
      state.firstPlayingSequence = minOrNull(state.firstPlayingSequence, event.sequence);
      break;
    case 'rebufferstart':
      state.rebufferStarts += 1;
      break;
    case 'seeked':
      state.seeks += 1;
      break;
    case 'error': {
      if (event.fields.player_error_severity === 'warning') break;
      state.fatalErrors += 1;
      state.firstFatalErrorSequence = minOrNull(state.firstFatalErrorSequence, event.sequence);
      if (!state.lastError || event.sequence > state.lastError.sequence) {
        // The error fields are always sent with an error event (§7.2), so this event's own values are the error's.
        state.lastError = {
          sequence: event.sequence,
          code: stringOf(event.fields.player_error_code),
          message: stringOf(event.fields.player_error_message),
          context: stringOf(event.fields.player_error_context),
        };
      }
      break;
    }
    default:
  }
  const height = numberOf(event.fields.video_source_height);
  if (height !== null && height > 0 && !state.renditionHeights.includes(height) && state.renditionHeights.length < MAX_RENDITION_HEIGHTS) {
    state.renditionHeights = [...state.renditionHeights, height].sort((a, b) => a - b);
  }
};

/** Merges one beacon's events for this view into `state` (changed in place); false when every event had been merged before. */
export const mergeBeaconEvents = (state: ViewState, events: readonly BeaconEvent[], context: BeaconContext): boolean => {
  const offset = context.transmissionTimestamp === undefined ? 0 : context.receivedAt - context.transmissionTimestamp;
  let changed = false;
  const ordered = [...events].sort((a, b) => a.sequence - b.sequence);
  for (const event of ordered) {
    if (hasSequence(state.sequences, event.sequence)) continue;
    changed = true;
    const eventTime = event.viewerTime === undefined ? context.receivedAt : Math.min(context.receivedAt, event.viewerTime + offset);
    const first = state.sequences.length === 0;
    const newest = event.sequence > state.lastSequence;
    state.sequences = addSequence(state.sequences, event.sequence);
    mergeFields(state, event, newest);
    noteEvent(state, event);
    recordEvent(state, event, eventTime);
    state.startedAt = first ? eventTime : Math.min(state.startedAt, eventTime);
    state.lastEventAt = first ? eventTime : Math.max(state.lastEventAt, eventTime);
    if (newest) {
      state.lastSequence = event.sequence;
      state.lastEventName = event.name;
    }
  }
  if (!changed) return false;
  state.lastBeaconAt = Math.max(state.lastBeaconAt, context.receivedAt);
  state.agent ??= context.agent;
  return true;
};

/**
 * Merges one beacon's events for this view into its state (a new object; `state` is not changed).
 * Returns the state unchanged (same object) when every event had been merged before.
 */
export const applyBeaconEvents = (state: ViewState | null, events: readonly BeaconEvent[], context: BeaconContext): ViewState => {
  const next = state ? structuredClone(state) : emptyViewState(events[0]?.viewId ?? '', context.receivedAt);
  const changed = mergeBeaconEvents(next, events, context);
  return changed || !state ? next : state;
};

/** Whether the player ended the view (its latest event is `viewend`; a later event reopens it). */
export const viewEndedByPlayer = (state: ViewState): boolean => state.lastEventName === 'viewend';

export { numberOf, stringOf };
