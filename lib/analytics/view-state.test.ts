import { describe, expect, test } from 'vitest';
import { parseBeacon, type BeaconEvent } from './beacon-schema';
import { beaconBody, simulatedView } from './mux-embed-beacons';
import { parseUserAgent } from './user-agent';
import { applyBeaconEvents, MAX_VIEW_EVENTS, type ViewState } from './view-state';
import { summarizeView } from './view-summary';

const ID = 'PlaybackId0123456789AB';
const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);

const eventsOf = (events: Record<string, string | number | boolean>[]): BeaconEvent[] => {
  const result = parseBeacon(beaconBody(events));
  if (!result.ok) throw new Error(result.messages.join('; '));
  return result.beacon.events;
};

const apply = (state: ViewState | null, events: Record<string, string | number | boolean>[], receivedAt: number, transmissionTimestamp = receivedAt) =>
  applyBeaconEvents(state, eventsOf(events), { receivedAt, transmissionTimestamp, agent: null });

const newView = () => simulatedView({ viewId: 'v1', sourceUrl: `https://cdn.example/${ID}.m3u8?token=SECRET`, videoTitle: 'Title', startedAt: T0 });

describe('a view merged from its beacons', () => {
  test('a whole view: client aggregates trusted, URLs without their query, fields merged forward', () => {
    const view = newView();
    const first = [view.event('viewstart'), view.event('play')];
    view.wait(400);
    first.push(view.event('playing', { view_time_to_first_frame: 400 }), view.event('renditionchange', { video_source_height: 720, video_source_width: 1280 }));
    let state = apply(null, first, T0 + 500);
    view.wait(10_000);
    const second = [
      view.event('rebufferstart'),
      view.event('rebufferend', { view_rebuffer_count: 1, view_rebuffer_duration: 300 }),
      view.event('seeked', { view_seek_count: 1, view_seek_duration: 120 }),
      view.event('renditionchange', { video_source_height: 1080, video_source_width: 1920 }),
      view.event('hb', { view_watch_time: 10_400, view_playing_time_ms_cumulative: 9_700, player_playhead_time: 9_700 }),
    ];
    state = apply(state, second, T0 + 10_500);
    view.wait(1_000);
    state = apply(state, [view.event('viewend', { view_watch_time: 11_400, view_playing_time_ms_cumulative: 10_700 })], T0 + 11_500);

    const summary = summarizeView(state);
    expect(summary).toMatchObject({
      closed: true,
      videoTitle: 'Title',
      videoId: null,
      playerSoftware: 'mux-player',
      playerName: 'keyframe-test',
      muxViewerId: 'v1-viewer',
      watchTimeMs: 11_400,
      playingTimeMs: 10_700,
      startupTimeMs: 400,
      rebufferCount: 1,
      rebufferDurationMs: 300,
      seekCount: 1,
      seekLatencyMs: 120,
      playbackFailure: false,
      videoStartupFailure: false,
      exitBeforeVideoStart: false,
    });
    expect(summary.rebufferPercentage).toBeCloseTo(300 / 11_400);
    expect(summary.viewStart.getTime()).toBe(T0);
    expect(summary.viewEnd.getTime()).toBe(T0 + 11_400);
    expect(state.fields.video_source_url).toBe(`https://cdn.example/${ID}.m3u8`);
    expect(state.fields.page_url).toBe('http://localhost/page');
    expect(state.renditionHeights).toEqual([720, 1080]);
    expect(state.events.map((event) => event.name)).toEqual([
      'viewstart', 'play', 'playing', 'renditionchange', 'rebufferstart', 'rebufferend', 'seeked', 'renditionchange', 'hb', 'viewend',
    ]);
    expect(state.events[3]?.details).toMatchObject({ video_source_height: 720 });
    expect(state.events[8]?.playback_time).toBe(9_700);
  });

  test('a beacon sent again changes nothing', () => {
    const view = newView();
    const events = [view.event('viewstart'), view.event('rebufferstart'), view.event('seeked')];
    const state = apply(null, events, T0);
    expect(apply(state, events, T0 + 20_000)).toBe(state);
    const summary = summarizeView(state);
    expect(summary.rebufferCount).toBe(1);
    expect(summary.seekCount).toBe(1);
  });

  test('a late, older event fills what is missing and overrides nothing', () => {
    const view = newView();
    const older = view.event('viewstart', { custom_1: 'old', custom_2: 'only-old' });
    const newer = view.event('hb', { custom_1: 'new' });
    const state = apply(apply(null, [newer], T0 + 1_000), [older], T0 + 2_000);
    expect(state.fields.custom_1).toBe('new');
    expect(state.fields.custom_2).toBe('only-old');
    expect(state.lastSequence).toBe(2);
    expect(state.events.map((event) => event.sequence)).toEqual([1, 2]);
  });

  test('derived when the player sent no aggregates: startup from viewstart to the first playing, rebuffers counted', () => {
    const view = newView();
    const events = [view.event('viewstart'), view.event('play')];
    view.wait(750);
    events.push(view.event('playing'), view.event('rebufferstart'), view.event('rebufferend'), view.event('rebufferstart'));
    const summary = summarizeView(apply(null, events, T0 + 800));
    expect(summary.startupTimeMs).toBe(750);
    expect(summary.rebufferCount).toBe(2);
    expect(summary.closed).toBe(false);
  });

  test('a fatal error before the first frame is a startup failure, not an exit before start', () => {
    const view = newView();
    const events = [
      view.event('viewstart'),
      view.event('play'),
      view.event('error', { player_error_code: 'warn', player_error_message: 'slow', player_error_severity: 'warning' }),
      view.event('error', { player_error_code: '2', player_error_message: 'MEDIA_ERR_NETWORK', player_error_context: 'ctx', player_error_severity: 'fatal' }),
      view.event('viewend'),
    ];
    const state = apply(null, events, T0);
    const summary = summarizeView(state);
    expect(summary).toMatchObject({ playbackFailure: true, videoStartupFailure: true, exitBeforeVideoStart: false, errorCode: '2', errorTypeId: 2 });
    expect(state.lastError).toMatchObject({ code: '2', message: 'MEDIA_ERR_NETWORK', context: 'ctx' });
  });

  test('a view that asked to play and ended with no frame exited before the video started', () => {
    const view = newView();
    const state = apply(null, [view.event('viewstart'), view.event('play')], T0);
    expect(summarizeView(state).exitBeforeVideoStart).toBe(false);
    expect(summarizeView(state, { closedByInactivity: true }).exitBeforeVideoStart).toBe(true);
    expect(summarizeView(apply(state, [view.event('viewend')], T0 + 1)).exitBeforeVideoStart).toBe(true);
  });

  test('a later beacon reopens a view the player ended', () => {
    const view = newView();
    const ended = apply(null, [view.event('viewstart'), view.event('viewend')], T0);
    expect(summarizeView(ended).closed).toBe(true);
    expect(summarizeView(apply(ended, [view.event('hb')], T0 + 5_000)).closed).toBe(false);
  });

  test("the player's clock is shifted to the server's by the beacon's transmission time", () => {
    const view = simulatedView({ viewId: 'skewed', sourceUrl: 'x', startedAt: T0 - 3_600_000 });
    const events = [view.event('viewstart')];
    view.wait(2_000);
    events.push(view.event('playing'));
    // Sent 3 s after the viewstart by a clock an hour behind; received at T0 + 3 s.
    const state = apply(null, events, T0 + 3_000, T0 - 3_600_000 + 3_000);
    expect(state.startedAt).toBe(T0);
    expect(state.lastEventAt).toBe(T0 + 2_000);
    expect(state.lastBeaconAt).toBe(T0 + 3_000);
  });

  test('the first and the latest events are kept, at most 200', () => {
    const view = newView();
    let state: ViewState | null = null;
    for (let batch = 0; batch < 5; batch += 1) {
      state = apply(state, Array.from({ length: 100 }, () => view.event('hb')), T0 + batch);
    }
    const sequences = state?.events.map((event) => event.sequence) ?? [];
    expect(sequences).toHaveLength(MAX_VIEW_EVENTS);
    expect(sequences.slice(0, 3)).toEqual([1, 2, 3]);
    expect(sequences[99]).toBe(100);
    expect(sequences[100]).toBe(401);
    expect(sequences.at(-1)).toBe(500);
  });

  test('viewer fields from the beacon win over the User-Agent', () => {
    const agent = parseUserAgent('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36');
    const view = newView();
    const state = applyBeaconEvents(null, eventsOf([view.event('viewstart')]), { receivedAt: T0, transmissionTimestamp: undefined, agent });
    expect(summarizeView(state)).toMatchObject({ viewerBrowser: 'Chrome', viewerOs: 'Linux', viewerDeviceType: 'desktop' });
    const withFields = applyBeaconEvents(null, eventsOf([view.event('hb', { viewer_application_name: 'Firefox', viewer_os_family: 'Windows' })]), {
      receivedAt: T0,
      transmissionTimestamp: undefined,
      agent,
    });
    expect(summarizeView(withFields)).toMatchObject({ viewerBrowser: 'Firefox', viewerOs: 'Windows' });
  });
});
