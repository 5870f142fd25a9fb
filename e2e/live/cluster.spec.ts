import type Mux from '@mux/mux-node';
import { getFreePort, isCluster, KeyframeCluster, type KeyframeProcess } from '../support/keyframe-server';
import { httpGet } from '../support/hls';
import { expectFirstLiveSegmentDecodes, firstVariantUrl, livePlayerState, startLivePlayer, waitForLiveStreamStatus, waitForPlaylist } from '../support/live';
import { publishTestPattern } from '../support/live-publisher';
import { Api } from '../support/api';
import { disposeKeyframe, expect, muxClient, test } from '../support/test';

// Live on the cluster: both app nodes take publishers (each its own RTMP port); a broadcast lives
// on the node its publisher reached, and every other node forwards that broadcast's HLS there, so
// players may reach any node (here through the round-robin balancer, every other request on the
// node that does not hold it). The API on any node ends it; the recording plays from any node.
// When the holder dies, the publisher reconnecting to the other node continues the same recording.

test.skip(!isCluster(), 'runs only on the cluster (npm run test:e2e:cluster)');

let cluster: KeyframeCluster | undefined;

test.afterEach(async () => {
  await disposeKeyframe(cluster);
  cluster = undefined;
});

const onNode = (node: KeyframeProcess, path: string) => node.url(path);

// A cluster whose two app nodes take publishers, each on its own RTMP port.
const startIngestCluster = async (label: string) => {
  const rtmpPorts = [await getFreePort(), await getFreePort()] as const;
  const started = await KeyframeCluster.start({ label, appEnv: [{ RTMP_PORT: String(rtmpPorts[0]) }, { RTMP_PORT: String(rtmpPorts[1]) }] });
  cluster = started;
  const token = await started.createToken();
  const rtmpUrl = (node: 0 | 1, streamKey: string) => `rtmp://127.0.0.1:${rtmpPorts[node]}/app/${streamKey}`;
  return { nodes: started, apps: started.apps as [KeyframeProcess, KeyframeProcess], token, mux: muxClient(started, token) as Mux, rtmpUrl };
};

test('a low-latency broadcast published to one app node plays from the other and through the balancer; the other node ends it; its recording plays everywhere', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  const { nodes, apps, token, mux, rtmpUrl } = await startIngestCluster('live-cluster');
  const [holder, other] = apps;
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] }, latency_mode: 'low' });
  const playbackId = stream.playback_ids![0]!.id;
  const publisher = publishTestPattern({ ingestUrl: rtmpUrl(0, stream.stream_key!) });
  try {
    // The node without the broadcast answers its playlists and media (forwarded to the holder).
    await expectFirstLiveSegmentDecodes(onNode(other, `/${playbackId}.m3u8`), testInfo.outputPath('forwarded'), 'forwarded');
    const multivariant = await waitForPlaylist(onNode(other, `/${playbackId}.m3u8`));
    const variantPath = new URL(firstVariantUrl(onNode(other, `/${playbackId}.m3u8`), multivariant)).pathname;
    const [viaOther, viaHolder] = await Promise.all([httpGet(onNode(other, variantPath)), httpGet(onNode(holder, variantPath))]);
    expect([viaOther.status, viaHolder.status]).toEqual([200, 200]);
    expect(viaOther.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(viaOther.body.toString()).toMatch(/#EXT-X-PART:/);
    // A blocking reload for the next part waits at the holder and comes back with it.
    const nextMsn = Number(/#EXT-X-PRELOAD-HINT:TYPE=PART,URI="[^"]*\/(\d+)\.(\d+)\.m4s"/.exec(viaHolder.body.toString())?.[1]);
    expect(Number.isInteger(nextMsn)).toBe(true);
    const blocked = await httpGet(onNode(other, `${variantPath}?_HLS_msn=${nextMsn + 1}`));
    expect(blocked.status).toBe(200);
    expect(blocked.body.toString()).toContain(`/${nextMsn}.m4s`);

    const active = await waitForLiveStreamStatus(mux, stream.id, 'active');
    expect(active.status).toBe('active');
    const assetId = active.active_asset_id!;
    const asset = await mux.video.assets.retrieve(assetId);
    const recordingPlaybackId = asset.playback_ids![0]!.id;
    const dvr = await waitForPlaylist(onNode(other, `/${recordingPlaybackId}.m3u8`), undefined, 20_000);
    expect(dvr, "the recording's playback ID is live on the other node too").toMatch(/#EXT-X-STREAM-INF/);

    // hls.js through the balancer: every other request lands on the node that forwards.
    await startLivePlayer(page, nodes.url(`/${playbackId}.m3u8`));
    await expect.poll(async () => (await livePlayerState(page)).currentTime, { timeout: 30_000 }).toBeGreaterThan(6);
    const state = await livePlayerState(page);
    expect(state.fatal, state.errors.join(', ')).toBeNull();
    expect(state.lowLatencyParts, 'hls.js played the parts').toBe(true);

    // The API on the node without the publisher ends the broadcast (the node bus tells the holder).
    const api = new Api(other.baseUrl, token);
    expect((await api.request('PUT', `/video/v1/live-streams/${stream.id}/complete`)).status).toBe(200);
    expect((await waitForLiveStreamStatus(mux, stream.id, 'idle')).status).toBe('idle');
    const ready = await new Api(nodes.baseUrl, token).waitForStatus(assetId, ['ready', 'errored'], 120_000);
    expect(ready.status, JSON.stringify(ready.errors)).toBe('ready');
    for (const node of [holder, other]) {
      const onDemand = await httpGet(onNode(node, `/${recordingPlaybackId}.m3u8`));
      expect(onDemand.status, node.label).toBe(200);
      expect(onDemand.body.toString()).not.toContain('EXT-X-PART');
    }
  } finally {
    await publisher.kill();
  }
});

const mediaSequenceOf = (playlist: string): number => Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(playlist)?.[1] ?? Number.NaN);
const lastMsnOf = (playlist: string): number => mediaSequenceOf(playlist) + playlist.split('\n').filter((line) => line.startsWith('#EXTINF')).length - 1;

test('a publisher whose node is killed reconnects to the other node within the reconnect window: the same recording goes on after one discontinuity, survives the dead node coming back, and holds both parts', async ({}, testInfo) => {
  test.setTimeout(300_000);
  const { nodes, apps, token, mux, rtmpUrl } = await startIngestCluster('live-node-death');
  const [dying, survivor] = apps;
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] }, latency_mode: 'reduced', reconnect_window: 60 });
  const playbackId = stream.playback_ids![0]!.id;
  const firstStartedAt = Date.now();
  let publisher = publishTestPattern({ ingestUrl: rtmpUrl(0, stream.stream_key!) });
  try {
    const assetId = (await waitForLiveStreamStatus(mux, stream.id, 'active')).active_asset_id!;
    expect(assetId).toBeTruthy();
    const multivariantUrl = onNode(survivor, `/${playbackId}.m3u8`);
    const variantPath = new URL(firstVariantUrl(multivariantUrl, await waitForPlaylist(multivariantUrl))).pathname;
    const before = await waitForPlaylist(onNode(survivor, variantPath), (text) => lastMsnOf(text) >= 6, 40_000);
    const secondsOnFirst = (Date.now() - firstStartedAt) / 1000;

    // The holder dies with its publisher's connection; the publisher comes back on the other node.
    await dying.kill9();
    await publisher.kill();
    const secondStartedAt = Date.now();
    publisher = publishTestPattern({ ingestUrl: rtmpUrl(1, stream.stream_key!) });
    const after = await waitForPlaylist(onNode(survivor, variantPath), (text) => /#EXT-X-DISCONTINUITY$/m.test(text) && text.split('#EXTINF').length > 3, 45_000);
    const continuedAfterMs = Date.now() - secondStartedAt;
    expect(mediaSequenceOf(after), `numbered on past ${lastMsnOf(before)}:\n${after}`).toBeGreaterThan(lastMsnOf(before));
    await expectFirstLiveSegmentDecodes(multivariantUrl, testInfo.outputPath('continued'), 'continued');
    const continued = await mux.video.liveStreams.retrieve(stream.id);
    expect([continued.status, continued.active_asset_id], 'the same recording goes on').toEqual(['active', assetId]);

    // The dead node comes back: it finalizes nothing the other node is still recording.
    await nodes.restartNode(dying);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const stillLive = await mux.video.assets.retrieve(assetId);
    expect([stillLive.status, stillLive.is_live], 'the recording is still live').toEqual(['preparing', true]);

    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const secondsOnSecond = (Date.now() - secondStartedAt) / 1000;
    expect((await new Api(survivor.baseUrl, token).request('PUT', `/video/v1/live-streams/${stream.id}/complete`)).status).toBe(200);
    expect((await waitForLiveStreamStatus(mux, stream.id, 'idle')).status).toBe('idle');
    const ready = await new Api(nodes.baseUrl, token).waitForStatus(assetId, ['ready', 'errored'], 120_000);
    expect(ready.status, JSON.stringify(ready.errors)).toBe('ready');
    const recording = await mux.video.assets.retrieve(assetId);
    const times = (recording as { recording_times?: Array<{ duration: number; type: string }> }).recording_times ?? [];
    expect(times.filter((time) => time.type === 'content').length, JSON.stringify(times)).toBeGreaterThanOrEqual(2);
    // Each part loses at most what its node had not yet segmented when it ended (and a startup).
    expect(recording.duration!, `${secondsOnFirst.toFixed(1)} s + ${secondsOnSecond.toFixed(1)} s published: ${JSON.stringify(times)}`).toBeGreaterThan(secondsOnFirst + secondsOnSecond - 8);
    console.log(
      `[live-node-death] republish → continued playlist ${continuedAfterMs} ms; msn ${lastMsnOf(before)} → ${mediaSequenceOf(after)}; published ${secondsOnFirst.toFixed(1)} + ${secondsOnSecond.toFixed(1)} s, recorded ${recording.duration} s in ${JSON.stringify(times)}`,
    );
    const recent = (await mux.video.liveStreams.retrieve(stream.id)).recent_asset_ids ?? [];
    expect(recent, 'one recording for the whole broadcast').toEqual([assetId]);
  } finally {
    await publisher.kill();
  }
});
