import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseBeacon } from '../../analytics/beacon-schema';
import { beaconBody, simulatedView } from '../../analytics/mux-embed-beacons';
import { parseUserAgent } from '../../analytics/user-agent';
import { videoViewIdFor } from '../../analytics/view-ids';
import { getDb } from '../../db/client';
import { setUpTestInstallation, type TestInstallation } from '../../db/test-support/test-installation';
import { ApiError } from '../../errors/api-error';
import { getVideoView, listVideoViews, metricBreakdown, metricOverall, metricTimeseries, viewersNow } from './data-api';
import { Collector } from './collector';
import { listDimensions, listDimensionValues } from './data-dimensions';
import { listErrors } from './data-errors';
import { closeInactiveViews, deleteViewsEndedBefore, writeViews, type StoredState } from './view-store';

// The Data API over views written by the view store from mux-embed-shaped beacons, on a real
// SQLite database: what the SDK's data.* calls and the dashboard read.

let installation: TestInstallation | undefined;
const ASSET_ID = 'AssetForAnalytics0000000000000000000000000001';
const PLAYBACK_ID = 'PlaybackForAnalytics000000000000000000000001';
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

beforeAll(async () => {
  installation = await setUpTestInstallation('analytics');
  await getDb().asset.create({
    data: { id: ASSET_ID, status: 'ready', encodingTier: 'smart', inputsJson: '[]', playbackIds: { create: { id: PLAYBACK_ID, policy: 'public' } } },
  });
});

afterAll(async () => {
  await installation?.tearDown();
});

type Played = { viewId: string; userAgent: string; startup: number; watch: number; playing: number; rebuffer?: number; end?: boolean; viewer?: string; playbackId?: string };

const send = async (viewId: string, events: Record<string, string | number | boolean>[], userAgent: string, stored?: StoredState | null) => {
  const result = parseBeacon(beaconBody(events));
  if (!result.ok) throw new Error(result.messages.join());
  const context = { receivedAt: Date.now(), transmissionTimestamp: result.beacon.transmissionTimestamp, agent: parseUserAgent(userAgent) };
  const written = await writeViews([{ viewId, stored, pending: [{ events: result.beacon.events, context }] }]);
  return written.get(viewId);
};

const play = async ({ viewId, userAgent, startup, watch, playing, rebuffer = 0, end = true, viewer, playbackId = PLAYBACK_ID }: Played) => {
  const view = simulatedView({ viewId, sourceUrl: `http://localhost:3000/${playbackId}.m3u8?token=t`, videoTitle: 'Analytics clip', muxViewerId: viewer, startedAt: Date.now() - watch - 1_000 });
  const events = [view.event('viewstart'), view.event('play')];
  view.wait(startup);
  events.push(view.event('playing', { view_time_to_first_frame: startup }));
  view.wait(watch - startup);
  events.push(view.event('hb', { view_watch_time: watch, view_playing_time_ms_cumulative: playing, view_rebuffer_duration: rebuffer, view_rebuffer_count: rebuffer > 0 ? 1 : 0 }));
  if (end) events.push(view.event('viewend'));
  return send(viewId, events, userAgent);
};

describe('Data API over stored views', () => {
  beforeAll(async () => {
    await play({ viewId: 'view-a', userAgent: CHROME, startup: 200, watch: 10_000, playing: 9_000, viewer: 'viewer-1' });
    await play({ viewId: 'view-b', userAgent: CHROME, startup: 600, watch: 20_000, playing: 18_000, rebuffer: 1_000, viewer: 'viewer-1' });
    await play({ viewId: 'view-c', userAgent: FIREFOX, startup: 1_000, watch: 5_000, playing: 4_000, viewer: 'viewer-2', end: false });
    await play({ viewId: 'view-other', userAgent: FIREFOX, startup: 300, watch: 1_000, playing: 500, playbackId: 'NotAPlaybackIdOfOurs000000' });
  });

  test('overall: views, unique viewers, playing time, startup median, rebuffer fraction; filters and the global value', async () => {
    const views = await metricOverall('views', {});
    expect(views).toMatchObject({ total_row_count: 1, meta: { aggregation: 'view_end' }, data: { value: 4, total_views: 4, total_watch_time: 36_000, total_playing_time: 31_500 } });
    expect(views.timeframe[1] - views.timeframe[0]).toBe(86_400);
    expect((await metricOverall('unique_viewers', {})).data.value).toBe(3);
    const forAsset = await metricOverall('playing_time', { filters: [`asset_id:${ASSET_ID}`] });
    expect(forAsset.data).toMatchObject({ value: 31_000, total_views: 3, global_value: 31_500 });
    expect((await metricOverall('video_startup_time', { filters: [`asset_id:${ASSET_ID}`] })).data.value).toBe(600);
    expect((await metricOverall('video_startup_time', { filters: [`asset_id:${ASSET_ID}`], measurement: 'avg' })).data.value).toBe(600);
    expect((await metricOverall('video_startup_time', { measurement: '95th' })).data.value).toBe(1_000);
    expect((await metricOverall('rebuffer_percentage', { filters: [`asset_id:${ASSET_ID}`] })).data.value).toBeCloseTo(0.05 / 3);
    expect((await metricOverall('views', { filters: ['!browser:Chrome'] })).data.value).toBe(2);
    expect((await metricOverall('views', { filters: ['operating_system:Windows', `playback_id:${PLAYBACK_ID}`] })).data.value).toBe(1);
    expect((await metricOverall('views', { timeframe: ['1000', '2000'] })).data.value).toBe(0);
  });

  test('unknown metrics, dimensions and measurements are refused', async () => {
    await expect(metricOverall('happiness', {})).rejects.toThrow(ApiError);
    await expect(metricOverall('views', { filters: ['country:US'] })).rejects.toThrow(ApiError);
    await expect(metricOverall('views', { measurement: 'median' })).rejects.toThrow(ApiError);
    await expect(metricOverall('video_startup_time', { measurement: '99th' })).rejects.toThrow(ApiError);
    await expect(metricBreakdown('views', { group_by: 'country' })).rejects.toThrow(ApiError);
  });

  test('breakdown by browser: rows with totals and negative impact, ordered and paged', async () => {
    const breakdown = await metricBreakdown('video_startup_time', { group_by: 'browser' });
    expect(breakdown.total_row_count).toBe(2);
    const byField = Object.fromEntries(breakdown.data.map((row) => [row.field, row]));
    expect(byField.Chrome).toMatchObject({ views: 2, value: 200, total_watch_time: 30_000, total_playing_time: 27_000 });
    expect(byField.Firefox).toMatchObject({ views: 2, value: 300 });
    expect(breakdown.data.map((row) => row.negative_impact).sort()).toEqual([1, 2]);
    const byValue = await metricBreakdown('video_startup_time', { group_by: 'browser', order_by: 'value', order_direction: 'desc', limit: 1 });
    expect(byValue.data.map((row) => row.field)).toEqual(['Firefox']);
    const secondPage = await metricBreakdown('video_startup_time', { group_by: 'browser', order_by: 'value', order_direction: 'desc', limit: 1, page: 2 });
    expect(secondPage.data.map((row) => row.field)).toEqual(['Chrome']);
    expect((await metricBreakdown('views', { group_by: 'browser', page: 3, limit: 1 })).data).toEqual([]);
    const byAsset = await metricBreakdown('views', { group_by: 'asset_id' });
    expect(byAsset.data).toEqual(expect.arrayContaining([expect.objectContaining({ field: ASSET_ID, value: 3 }), expect.objectContaining({ field: null, value: 1 })]));
  });

  test('timeseries: every interval of the timeframe, views counted in the one they ended in', async () => {
    const series = await metricTimeseries('views', { timeframe: ['2:hours'], group_by: 'ten_minutes' });
    expect(series.meta).toEqual({ aggregation: 'view_end', granularity: 'ten_minutes' });
    expect(series.data.length).toBeGreaterThanOrEqual(12);
    expect(series.total_row_count).toBe(series.data.length);
    expect(series.data.reduce((total, [, value]) => total + (value ?? 0), 0)).toBe(4);
    expect(series.data[0]?.[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d0:00Z$/);
    const startup = await metricTimeseries('video_startup_time', { timeframe: ['1:hours'] });
    expect(startup.meta.granularity).toBe('minute');
    expect(startup.data.some(([, value]) => value === null)).toBe(true);
  });

  test('video views: listed latest first with Mux fields, filtered, and one view in detail', async () => {
    const list = await listVideoViews({ limit: 2 });
    expect(list.total_row_count).toBe(4);
    expect(list.data).toHaveLength(2);
    expect(list.data[0]).toMatchObject({ total_row_count: 4, video_title: 'Analytics clip', playback_failure: false, country_code: null });
    expect(list.data[0]?.view_start).toMatch(/Z$/);
    expect((await listVideoViews({ viewer_id: 'viewer-1' })).data.map((view) => view.id).sort()).toEqual([videoViewIdFor('view-a'), videoViewIdFor('view-b')].sort());
    expect((await listVideoViews({ filters: ['browser:Firefox'], order_direction: 'asc' })).total_row_count).toBe(2);
    expect((await listVideoViews({ error_id: 'any' })).total_row_count).toBe(0);

    const { data } = await getVideoView(videoViewIdFor('view-b'));
    expect(data).toMatchObject({
      id: videoViewIdFor('view-b'),
      view_id: 'view-b',
      asset_id: ASSET_ID,
      playback_id: PLAYBACK_ID,
      live_stream_id: null,
      video_title: 'Analytics clip',
      viewer_application_name: 'Chrome',
      viewer_os_family: 'Linux',
      viewer_device_category: 'desktop',
      player_software: null,
      player_mux_plugin_name: 'mux-player',
      mux_embed_version: '5.19.0',
      mux_viewer_id: 'viewer-1',
      player_source_url: `http://localhost:3000/${PLAYBACK_ID}.m3u8`,
      page_url: 'http://localhost/page',
      watch_time: 20_000,
      view_playing_time: '18000',
      time_to_first_frame: 600,
      buffering_duration: 1_000,
      rebuffer_percentage: '0.05',
      exit_before_video_start: false,
      watched: true,
    });
    expect(data.events.map((event) => event.name)).toEqual(['viewstart', 'play', 'playing', 'hb', 'viewend']);
    await expect(getVideoView('NoSuchView')).rejects.toMatchObject({ type: 'not_found' });
  });

  test('viewers now: open views with a beacon in the last minute', async () => {
    expect(await viewersNow()).toEqual({ viewers: 1 });
    expect(await viewersNow(['browser:Firefox'])).toEqual({ viewers: 1 });
    expect(await viewersNow(['browser:Chrome'])).toEqual({ viewers: 0 });
  });

  test('dimensions: the basic and advanced lists; one dimension\'s values by view count, filtered and paged', async () => {
    const { data } = listDimensions();
    expect(data.basic).toEqual(expect.arrayContaining(['asset_id', 'playback_id', 'video_title', 'browser', 'operating_system']));
    expect(data.advanced).toEqual(expect.arrayContaining(['browser_version', 'player_error_code']));
    expect(data.basic.filter((name) => data.advanced.includes(name))).toEqual([]);
    const browsers = await listDimensionValues('browser', {});
    expect(browsers).toMatchObject({ total_row_count: 2, data: [{ value: 'Chrome', total_count: 2 }, { value: 'Firefox', total_count: 2 }] });
    expect((await listDimensionValues('browser', { filters: ['operating_system:Windows'] })).data).toEqual([{ value: 'Firefox', total_count: 2 }]);
    expect((await listDimensionValues('browser', { limit: 1, page: 2 })).data).toEqual([{ value: 'Firefox', total_count: 2 }]);
    // Views of an unknown source have no asset: no null value is listed.
    expect((await listDimensionValues('asset_id', {})).data).toEqual([{ value: ASSET_ID, total_count: 3 }]);
    await expect(listDimensionValues('country', {})).rejects.toThrow(ApiError);
  });

  test('errors: one row per error type among the filtered views, its share of them, latest message', async () => {
    const failing = async (viewId: string, code: string, message: string, offsetMs: number) => {
      const view = simulatedView({ viewId, sourceUrl: `http://localhost:3000/${PLAYBACK_ID}.m3u8`, videoTitle: 'Broken clip', startedAt: Date.now() - 5_000 + offsetMs });
      const events = [view.event('viewstart'), view.event('play')];
      view.wait(500);
      events.push(view.event('error', { player_error_code: code, player_error_message: message, player_error_severity: 'fatal' }), view.event('viewend'));
      await send(viewId, events, CHROME);
    };
    await failing('broken-1', '2', 'network error (old message)', 0);
    await failing('broken-2', '2', 'network error', 1_000);
    await failing('broken-3', 'hls-manifest', 'manifest failed', 0);
    await play({ viewId: 'broken-none', userAgent: CHROME, startup: 100, watch: 1_000, playing: 900 });
    const all = await listErrors({});
    expect(all.data.map((row) => [row.player_error_code, row.count])).toEqual([['2', 2], ['hls-manifest', 1]]);
    expect(all.data[0]).toMatchObject({ id: 2, code: 2, message: 'network error', description: null, notes: null });
    expect(all.data[0]?.last_seen).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(all.data[1]).toMatchObject({ code: null, message: 'manifest failed' });
    // Shares of the views the filters leave: 3 broken clips of 8 views in all.
    expect(all.data[0]?.percentage).toBeCloseTo(2 / 8);
    const titled = await listErrors({ filters: ['video_title:Broken clip'] });
    expect(titled.data.map((row) => row.percentage)).toEqual([2 / 3, 1 / 3]);
    expect((await listErrors({ timeframe: ['1000', '2000'] })).data).toEqual([]);
    await getDb().playbackView.deleteMany({ where: { viewId: { in: ['broken-1', 'broken-2', 'broken-3', 'broken-none'] } } });
  });
});

describe('view store', () => {
  test('two nodes writing one view merge their events; beacons sent again count once', async () => {
    const view = simulatedView({ viewId: 'shared', sourceUrl: `http://x/${PLAYBACK_ID}.m3u8`, startedAt: Date.now() - 5_000 });
    const first = [view.event('viewstart'), view.event('play')];
    const second = [view.event('rebufferstart'), view.event('rebufferend')];
    const nodeA = await send('shared', first, CHROME, null);
    // Node B never saw the view: it reads it, then merges.
    await send('shared', second, CHROME, undefined);
    // Node A writes over what it last knew: it must merge with B's write, not overwrite it.
    const third = [view.event('rebufferstart'), view.event('viewend')];
    await send('shared', [...third, ...first], CHROME, nodeA);
    const row = await getDb().playbackView.findUniqueOrThrow({ where: { viewId: 'shared' } });
    expect(row.rebufferCount).toBe(2);
    expect(row.closed).toBe(true);
    expect(row.version).toBe(3);
    expect(row.lastSequence).toBe(6);
  });

  test('inactive views close (an exit before start when no frame played); retention deletes old views', async () => {
    const view = simulatedView({ viewId: 'left-early', sourceUrl: 'http://x/y.m3u8', startedAt: Date.now() - 60_000 });
    await send('left-early', [view.event('viewstart'), view.event('play')], CHROME, null);
    expect(await closeInactiveViews(new Date(Date.now() + 1_000))).toBeGreaterThanOrEqual(1);
    const row = await getDb().playbackView.findUniqueOrThrow({ where: { viewId: 'left-early' } });
    expect(row).toMatchObject({ closed: true, exitBeforeVideoStart: true });
    const reopened = await send('left-early', [view.event('hb')], CHROME, undefined);
    expect(reopened?.version).toBe(3);
    expect((await getDb().playbackView.findUniqueOrThrow({ where: { viewId: 'left-early' } })).closed).toBe(false);
    expect(await deleteViewsEndedBefore(new Date(Date.now() - 86_400_000))).toBe(0);
    expect(await deleteViewsEndedBefore(new Date(Date.now() + 86_400_000))).toBeGreaterThanOrEqual(5);
  });
});

describe('collector', () => {
  test('batches beacons per view; a view evicted from memory is read again and merged, not overwritten', async () => {
    // Room for about one view state: every other view is evicted between writes.
    const collector = new Collector({ log: pino({ level: 'silent' }), maxKeptBytes: 4_000 });
    const views = Array.from({ length: 5 }, (_, index) => simulatedView({ viewId: `batch-${index}`, sourceUrl: `http://x/${PLAYBACK_ID}.m3u8`, startedAt: Date.now() - 1_000 }));
    const accept = (events: Record<string, string | number | boolean>[]) => {
      const parsed = parseBeacon(beaconBody(events));
      if (!parsed.ok) throw new Error(parsed.messages.join());
      collector.accept(parsed.beacon, { receivedAt: Date.now(), agent: parseUserAgent(CHROME) });
    };
    const firstBeacons = views.map((view) => [view.event('viewstart'), view.event('rebufferstart')]);
    for (const events of firstBeacons) accept(events);
    expect(collector.pendingEventCount).toBe(10);
    await collector.flush();
    expect(collector.pendingEventCount).toBe(0);
    expect(collector.keptViewCount).toBeLessThan(5);
    // One beacon for two views, and the first beacons sent again (a retry).
    accept([views[0]!.event('rebufferstart'), views[4]!.event('rebufferstart'), ...firstBeacons[0]!]);
    await collector.stop();
    const rows = await getDb().playbackView.findMany({ where: { viewId: { startsWith: 'batch-' } }, orderBy: { viewId: 'asc' } });
    expect(rows.map((row) => row.rebufferCount)).toEqual([2, 1, 1, 1, 2]);
    expect(rows.every((row) => row.assetId === ASSET_ID)).toBe(true);
  });

  test('too many pending events: refused until written', () => {
    const collector = new Collector({ log: pino({ level: 'silent' }), maxPendingEvents: 3 });
    const view = simulatedView({ viewId: 'busy', sourceUrl: 'x' });
    const parsed = parseBeacon(beaconBody([view.event('viewstart'), view.event('play')]));
    if (!parsed.ok) throw new Error('unparsed');
    collector.accept(parsed.beacon, { receivedAt: Date.now(), agent: null });
    expect(() => collector.accept(parsed.beacon, { receivedAt: Date.now(), agent: null })).toThrow(ApiError);
  });
});
