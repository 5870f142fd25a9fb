import type Mux from '@mux/mux-node';
import { Api } from '../support/api';
import { firstVariantUrl, livePlayerState, programDateTimes, startLiveKeyframe, startLivePlayer, waitForPlaylist, type LiveServer } from '../support/live';
import { publishTestPattern } from '../support/live-publisher';
import { disposeKeyframe, expect, muxClient, test } from '../support/test';
import { WebhookReceiver } from '../../harness/webhook-receiver';

// A broadcast end to end, through @mux/mux-node: ffmpeg publishes over RTMP, hls.js in Chromium
// plays the live playlist, the publisher drops and comes back within the reconnect window (same
// asset, one discontinuity), the window runs out (idle, EXT-X-ENDLIST), and the recording becomes
// an on-demand asset as long as what was broadcast — the gap not counted.

test.describe.configure({ mode: 'serial' });

let live: LiveServer;
let mux: Mux;
let api: Api;
let receiver: WebhookReceiver;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test.beforeAll(async () => {
  live = await startLiveKeyframe('live-broadcast');
  const token = await live.server.createToken();
  mux = muxClient(live.server, token);
  api = new Api(live.server.baseUrl, token);
  receiver = await (await WebhookReceiver.start()).subscribeTo(live.server);
});

test.afterAll(async () => {
  await receiver?.close();
  await disposeKeyframe(live?.server);
});

const typesAbout = (objectId: string) => receiver.accepted(objectId).map((entry) => String(entry.event.type));

test('412 before the publisher, live HLS with program date times, a reconnect keeps the asset, the recording is ready without the gap', async ({ page }) => {
  const stream = await mux.video.liveStreams.create({
    playback_policies: ['public'],
    new_asset_settings: { playback_policies: ['public'] },
    reconnect_window: 10,
  });
  const playbackId = stream.playback_ids![0]!.id;
  const liveUrl = live.server.url(`/${playbackId}.m3u8`);
  expect((await fetch(liveUrl)).status, 'a live playback ID answers 412 before the stream is active').toBe(412);

  const first = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  const multivariant = await waitForPlaylist(liveUrl, undefined, 20_000);
  expect(multivariant).toMatch(/#EXT-X-STREAM-INF:.*CODECS="avc1\.[0-9a-f]{6},mp4a\.40\.2"/);
  const mediaUrl = firstVariantUrl(liveUrl, multivariant);
  const media = await waitForPlaylist(mediaUrl);
  expect(media, 'a live window has no playlist type').not.toContain('#EXT-X-PLAYLIST-TYPE');
  expect(media).not.toContain('#EXT-X-ENDLIST');
  const [firstDate] = programDateTimes(media);
  expect(firstDate, 'the first segment is dated when its first frame reached the ingest').toBeDefined();
  expect(Math.abs(firstDate! - first.startedAtMs), 'program date time vs the publisher clock (ms)').toBeLessThan(2_000);

  const active = await mux.video.liveStreams.retrieve(stream.id);
  expect(active.status).toBe('active');
  const assetId = active.active_asset_id!;
  expect(assetId).toBeTruthy();
  expect(active.recent_asset_ids).toEqual([assetId]);
  const recording = await mux.video.assets.retrieve(assetId);
  expect(recording).toMatchObject({ is_live: true, live_stream_id: stream.id, status: 'preparing' });
  const assetPlaybackId = recording.playback_ids![0]!.id;
  const assetUrl = live.server.url(`/${assetPlaybackId}.m3u8`);
  const dvr = await waitForPlaylist(firstVariantUrl(assetUrl, await waitForPlaylist(assetUrl)));
  expect(dvr, "the recording's playback ID serves DVR from the start").toContain('#EXT-X-PLAYLIST-TYPE:EVENT');

  await startLivePlayer(page, liveUrl);
  await expect.poll(async () => (await livePlayerState(page)).currentTime, { timeout: 20_000 }).toBeGreaterThan(3);
  const playing = await livePlayerState(page);
  expect(playing.fatal, playing.errors.join(', ')).toBeNull();

  await sleep(Math.max(0, 10_000 - (Date.now() - first.startedAtMs)));
  await first.kill();
  const firstSeconds = (Date.now() - first.startedAtMs) / 1000;
  await receiver.waitForEvent('video.live_stream.disconnected', stream.id);
  const gapStarted = Date.now();
  await sleep(4_000);

  const second = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  const resumed = await waitForPlaylist(mediaUrl, (text) => text.includes('#EXT-X-DISCONTINUITY'), 20_000);
  expect(resumed.match(/#EXT-X-MAP:/g)?.length, 'the second connection brings its own init segment').toBeGreaterThanOrEqual(2);
  const gapSeconds = (second.startedAtMs - gapStarted) / 1000;
  const during = await mux.video.liveStreams.retrieve(stream.id);
  expect(during).toMatchObject({ status: 'active', active_asset_id: assetId });
  await sleep(Math.max(0, 8_000 - (Date.now() - second.startedAtMs)));
  await second.stop();
  const secondSeconds = (Date.now() - second.startedAtMs) / 1000;

  await receiver.waitForEvent('video.live_stream.idle', stream.id, { timeoutMs: 40_000 });
  const ended = await waitForPlaylist(mediaUrl, (text) => text.includes('#EXT-X-ENDLIST'));
  expect(ended).toContain('#EXT-X-DISCONTINUITY');
  const idle = await mux.video.liveStreams.retrieve(stream.id);
  expect(idle.status).toBe('idle');
  expect(idle.active_asset_id).toBeUndefined();

  const ready = await api.waitForStatus(assetId, ['ready', 'errored'], 120_000);
  expect(ready.status, JSON.stringify(ready.errors)).toBe('ready');
  expect(ready.is_live).toBe(false);
  expect(ready.recording_times).toHaveLength(2);
  const broadcastSeconds = firstSeconds + secondSeconds;
  // Within about a segment per connection of what was sent; the gap is not in it.
  expect(ready.duration).toBeGreaterThan(broadcastSeconds - 4);
  expect(ready.duration).toBeLessThan(broadcastSeconds + 1);
  expect(gapSeconds).toBeGreaterThan(4);

  expect(typesAbout(stream.id).filter((type) => type !== 'video.live_stream.updated')).toEqual([
    'video.live_stream.created',
    'video.live_stream.connected',
    'video.live_stream.recording',
    'video.live_stream.active',
    'video.live_stream.disconnected',
    'video.live_stream.connected',
    'video.live_stream.disconnected',
    'video.live_stream.idle',
  ]);
  await receiver.waitForEvent('video.asset.live_stream_completed', assetId);
  expect(typesAbout(assetId)).toEqual(['video.asset.created', 'video.asset.ready', 'video.asset.live_stream_completed']);

  // The recording now plays as an ordinary on-demand asset, start to end.
  const vod = await waitForPlaylist(assetUrl, (text) => !text.includes('PLAYLIST-TYPE:EVENT'));
  const vodMedia = await waitForPlaylist(firstVariantUrl(assetUrl, vod));
  expect(vodMedia).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
  expect(vodMedia).toContain('#EXT-X-ENDLIST');
});

test('a reconnect after the window is a new broadcast with a new asset; complete ends one at once; recordings get their MP4', async () => {
  const stream = await mux.video.liveStreams.create({
    playback_policies: ['public'],
    new_asset_settings: { playback_policies: ['public'], static_renditions: [{ resolution: 'highest' }] },
    reconnect_window: 1,
  });
  const liveUrl = live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`);
  const first = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  await waitForPlaylist(liveUrl, undefined, 20_000);
  const firstAsset = (await mux.video.liveStreams.retrieve(stream.id)).active_asset_id!;
  await sleep(3_000);
  await first.kill();
  await receiver.waitForEvent('video.live_stream.idle', stream.id, { timeoutMs: 20_000 });

  const second = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  await expect
    .poll(async () => (await mux.video.liveStreams.retrieve(stream.id)).active_asset_id, { timeout: 20_000 })
    .toMatch(/^[A-Za-z0-9]+$/);
  const secondAsset = (await mux.video.liveStreams.retrieve(stream.id)).active_asset_id!;
  expect(secondAsset).not.toBe(firstAsset);
  await sleep(3_000);

  await mux.video.liveStreams.complete(stream.id);
  expect(await second.exited, 'complete disconnects the publisher').not.toBeUndefined();
  const completed = await mux.video.liveStreams.retrieve(stream.id);
  expect(completed.status).toBe('idle');
  expect(completed.recent_asset_ids).toEqual([firstAsset, secondAsset]);
  const media = await waitForPlaylist(firstVariantUrl(liveUrl, await waitForPlaylist(liveUrl)));
  expect(media, 'after complete the live playlist ends').toContain('#EXT-X-ENDLIST');
  for (const assetId of [firstAsset, secondAsset]) {
    const asset = await api.waitForStatus(assetId, ['ready', 'errored'], 90_000);
    expect(asset.status).toBe('ready');
    expect(asset.live_stream_id).toBe(stream.id);
  }
  await expect
    .poll(async () => (await mux.video.assets.retrieve(secondAsset)).static_renditions?.files?.map((file) => `${file.name} ${file.status}`), { timeout: 60_000, intervals: [1_100] })
    .toEqual(['highest.mp4 ready']);
  const recorded = await mux.video.assets.retrieve(secondAsset);
  const mp4 = await fetch(live.server.url(`/${recorded.playback_ids![0]!.id}/highest.mp4`));
  expect(mp4.status).toBe(200);
  expect(mp4.headers.get('content-type')).toBe('video/mp4');
  expect((await mp4.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  const listed = await mux.video.assets.list({ live_stream_id: stream.id } as Parameters<typeof mux.video.assets.list>[0]);
  expect(listed.data.map((asset) => asset.id).sort()).toEqual([firstAsset, secondAsset].sort());
});
