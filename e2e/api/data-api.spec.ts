import Mux from '@mux/mux-node';
import { Api, expectApiError } from '../support/api';
import { beaconBody, FIREFOX_UA, postBeacon, simulatedView, wholeViewBeacons } from '../support/beacons';
import type { AccessToken, KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';

// The Data API subset (mux-api-2.md §7.5) through @mux/mux-node's `data.metrics.*` and
// `data.videoViews.*`, unchanged, over views fed through the real collector as mux-embed sends
// them: an asset's playback ID, a live stream's, and a source Keyframe does not know.

test.describe.configure({ mode: 'serial' });

let server: KeyframeServer;
let token: AccessToken;
let api: Api;
let mux: Mux;
let assetId: string;
let assetPlaybackId: string;
let liveStreamId: string;
let livePlaybackId: string;

test.beforeAll(async ({ media, fixtures }) => {
  server = await startKeyframe({ label: 'data-api' });
  token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token, { maxRetries: 0 });
  const asset = await mux.video.assets.create({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }], playback_policies: ['public'] });
  assetId = asset.id;
  assetPlaybackId = asset.playback_ids?.[0]?.id ?? '';
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'] });
  liveStreamId = stream.id;
  livePlaybackId = stream.playback_ids?.[0]?.id ?? '';

  const views = [
    // Two Chrome views of the asset (one viewer), with the player's own aggregates.
    ...wholeViewBeacons({ viewId: 'data-1', sourceUrl: `${server.baseUrl}/${assetPlaybackId}.m3u8`, startupMs: 300, watchMs: 10_000, playingMs: 9_000, viewer: 'viewer-a' }),
    ...wholeViewBeacons({ viewId: 'data-2', sourceUrl: `${server.baseUrl}/${assetPlaybackId}.m3u8?token=abc`, startupMs: 900, watchMs: 20_000, playingMs: 18_000, rebufferMs: 1_000, viewer: 'viewer-a' }),
    // The live stream, played by mux-player with its viewer_* fields.
    ...wholeViewBeacons({
      viewId: 'data-3',
      sourceUrl: `${server.baseUrl}/${livePlaybackId}.m3u8`,
      startupMs: 1_500,
      watchMs: 30_000,
      playingMs: 29_000,
      viewer: 'viewer-b',
      title: 'Live show',
      extra: { viewer_application_name: 'Safari', viewer_os_family: 'macOS', video_id: livePlaybackId },
      end: false,
    }),
  ];
  for (const body of views) expect((await postBeacon(server, body)).status).toBe(200);
  // Firefox, by its User-Agent: a video Keyframe does not host.
  for (const body of wholeViewBeacons({ viewId: 'data-4', sourceUrl: 'https://elsewhere.example/other.m3u8', startupMs: 600, watchMs: 5_000, playingMs: 4_000, viewer: 'viewer-c', title: 'Elsewhere' })) {
    expect((await postBeacon(server, body, { userAgent: FIREFOX_UA })).status).toBe(200);
  }
  // Each view's two beacons may reach different nodes (the cluster run balances them), each
  // writing what it holds every 2 s: wait until every view has both (its title is in the first
  // beacon, its watch time in the last), not only until it exists.
  const merged = async () =>
    (await mux.data.videoViews.list({ timeframe: ['1:hours'], limit: 10 })).data.map((view) => `${view.video_title}: ${view.watch_time}`).sort();
  await expect.poll(merged, { timeout: 15_000 }).toEqual(['E2E clip: 10000', 'E2E clip: 20000', 'Elsewhere: 5000', 'Live show: 30000']);
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

test('overall values: views, unique viewers, playing time, startup median, rebuffer fraction; filtered and global', async () => {
  const views = await mux.data.metrics.getOverallValues('views', { timeframe: ['24:hours'] });
  expect(views.meta).toEqual({ aggregation: 'view_end' });
  expect(views.data).toMatchObject({ value: 4, total_views: 4, total_watch_time: 65_000, total_playing_time: 60_000 });
  expect(views.timeframe[1]! - views.timeframe[0]!).toBe(86_400);
  expect((await mux.data.metrics.getOverallValues('unique_viewers')).data.value).toBe(3);

  const forAsset = await mux.data.metrics.getOverallValues('playing_time', { filters: [`asset_id:${assetId}`] });
  expect(forAsset.data).toMatchObject({ value: 27_000, total_views: 2, global_value: 60_000 });
  expect((await mux.data.metrics.getOverallValues('video_startup_time', { filters: [`playback_id:${assetPlaybackId}`] })).data.value).toBe(300);
  expect((await mux.data.metrics.getOverallValues('video_startup_time', { filters: [`asset_id:${assetId}`], measurement: 'avg' })).data.value).toBe(600);
  expect((await mux.data.metrics.getOverallValues('rebuffer_percentage', { filters: [`asset_id:${assetId}`] })).data.value).toBeCloseTo(0.025);
  expect((await mux.data.metrics.getOverallValues('views', { filters: [`live_stream_id:${liveStreamId}`] })).data.value).toBe(1);
  expect((await mux.data.metrics.getOverallValues('views', { filters: ['!browser:Chrome'] })).data.value).toBe(2);
  expect((await mux.data.metrics.getOverallValues('views', { filters: ['operating_system:Windows', 'video_title:Elsewhere'] })).data.value).toBe(1);
  expect((await mux.data.metrics.getOverallValues('exits_before_video_start')).data.value).toBe(0);
  const epochs = [String(Math.floor(Date.now() / 1000) - 7_200), String(Math.floor(Date.now() / 1000) - 3_600)];
  expect((await mux.data.metrics.getOverallValues('views', { timeframe: epochs })).data.value).toBe(0);
});

test('breakdown by browser and by asset, ordered, paged the way the SDK iterates', async () => {
  const page = await mux.data.metrics.listBreakdownValues('views', { group_by: 'browser', order_by: 'views', order_direction: 'desc' });
  expect(page.data[0]).toEqual({ field: 'Chrome', value: 2, views: 2, total_watch_time: 30_000, total_playing_time: 27_000, negative_impact: expect.any(Number) });
  const all = [];
  for await (const row of mux.data.metrics.listBreakdownValues('video_startup_time', { group_by: 'browser', limit: 1 })) all.push(row);
  expect(all.map((row) => row.field).sort()).toEqual(['Chrome', 'Firefox', 'Safari']);
  expect(all.find((row) => row.field === 'Safari')?.value).toBe(1_500);
  const byAsset = await mux.data.metrics.listBreakdownValues('playing_time', { group_by: 'asset_id' });
  expect(byAsset.data).toContainEqual(expect.objectContaining({ field: assetId, value: 27_000, views: 2 }));
});

test('timeseries per hour: the views of the hour, startup with its number of views', async () => {
  const series = await mux.data.metrics.getTimeseries('views', { timeframe: ['3:hours'], group_by: 'hour' });
  expect(series.meta).toEqual({ aggregation: 'view_end', granularity: 'hour' });
  expect(series.data.length).toBeGreaterThanOrEqual(3);
  expect(series.data.at(-1)).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:00:00Z$/), expect.any(Number), expect.any(Number)]);
  expect(series.data.reduce((total, row) => total + Number(row[1]), 0)).toBe(4);
  const startup = await mux.data.metrics.getTimeseries('video_startup_time', { timeframe: ['3:hours'], group_by: 'hour' });
  expect(startup.data.reduce((total, row) => total + Number(row[2]), 0)).toBe(4);
});

test('video views: listed with Mux fields, filtered by viewer and dimension; one retrieved with its events', async () => {
  const list = await mux.data.videoViews.list({ viewer_id: 'viewer-a', order_direction: 'desc' });
  expect(list.data).toHaveLength(2);
  expect(list.data[0]).toMatchObject({ id: expect.stringMatching(/^[0-9A-Za-z]{36}$/), video_title: 'E2E clip', viewer_application_name: 'Chrome', playback_failure: false, total_row_count: 2 });
  const live = (await mux.data.videoViews.list({ filters: [`live_stream_id:${liveStreamId}`] })).data;
  expect(live).toHaveLength(1);
  const view = (await mux.data.videoViews.retrieve(live[0]!.id)).data;
  expect(view).toMatchObject({
    view_id: 'data-3',
    live_stream_id: liveStreamId,
    playback_id: livePlaybackId,
    video_id: livePlaybackId,
    viewer_application_name: 'Safari',
    viewer_os_family: 'macOS',
    time_to_first_frame: 1_500,
    watch_time: 30_000,
    page_url: 'http://page.example/watch',
  });
  expect(view.events.map((event) => event.name)).toEqual(['playerready', 'viewstart', 'play', 'playing', 'hb']);
  expect((await mux.data.metrics.getOverallValues('views', { filters: [`asset_id:${assetId}`] })).data.value).toBe(2);
});

test('refusals in Mux’s error shape: unknown metric, dimension or view; no credentials', async () => {
  expectApiError(await api.get('/data/v1/metrics/happiness/overall'), 400, 'invalid_parameters');
  expectApiError(await api.get('/data/v1/metrics/views/breakdown?group_by=planet'), 400, 'invalid_parameters');
  expectApiError(await api.get('/data/v1/metrics/views/overall?filters[]=planet:mars'), 400, 'invalid_parameters');
  expectApiError(await api.get('/data/v1/metrics/video_startup_time/overall?metric_filters[]=aggregate_startup_time>=1000'), 400, 'invalid_parameters');
  expectApiError(await api.get('/data/v1/metrics/views/overall?timeframe[]=soon'), 400, 'invalid_parameters');
  expectApiError(await api.get('/data/v1/video-views/NoSuchView'), 404, 'not_found');
  expectApiError(await api.get('/data/v1/dimensions/planet'), 400, 'invalid_parameters');
  await expect(mux.data.metrics.getOverallValues('happiness' as 'views')).rejects.toMatchObject({ status: 400 });
  const anonymous = await fetch(`${server.baseUrl}/data/v1/video-views`);
  expect(anonymous.status).toBe(401);
});

test('dimensions and their values; errors by type with their share of views', async () => {
  const dimensions = await mux.data.dimensions.list();
  expect(dimensions.data.basic).toEqual(expect.arrayContaining(['asset_id', 'playback_id', 'video_title', 'browser', 'operating_system']));
  expect(dimensions.data.advanced).toContain('player_error_code');
  const browsers = [];
  for await (const value of mux.data.dimensions.listValues('browser', { timeframe: ['24:hours'], limit: 1 })) browsers.push(value);
  expect(browsers).toEqual([
    { value: 'Chrome', total_count: 2 },
    { value: 'Firefox', total_count: 1 },
    { value: 'Safari', total_count: 1 },
  ]);
  expect((await mux.data.dimensions.listValues('asset_id')).data).toEqual([{ value: assetId, total_count: 2 }]);

  expect((await mux.data.errors.list()).data).toEqual([]);
  // A view of the asset that fails with a fatal network error.
  const view = simulatedView({ viewId: 'data-error', sourceUrl: `${server.baseUrl}/${assetPlaybackId}.m3u8`, videoTitle: 'Broken', startedAt: Date.now() - 3_000 });
  const failed = [view.event('viewstart'), view.event('play')];
  view.wait(800);
  failed.push(view.event('error', { player_error_code: 2, player_error_message: 'A network error caused the media download to fail.', player_error_severity: 'fatal' }), view.event('viewend'));
  expect((await postBeacon(server, beaconBody(failed, view.now))).status).toBe(200);
  await expect.poll(async () => (await mux.data.errors.list({ filters: [`asset_id:${assetId}`] })).data.length, { timeout: 15_000 }).toBe(1);
  const errors = await mux.data.errors.list({ filters: [`asset_id:${assetId}`], timeframe: ['1:hours'] });
  expect(errors.data).toEqual([
    {
      id: 2,
      code: 2,
      player_error_code: '2',
      message: 'A network error caused the media download to fail.',
      description: null,
      notes: null,
      count: 1,
      percentage: 1 / 3,
      last_seen: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    },
  ]);
  expect((await mux.data.videoViews.list({ error_id: 2 })).data.map((row) => row.video_title)).toEqual(['Broken']);
});
