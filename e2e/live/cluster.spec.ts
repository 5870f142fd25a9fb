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

test.skip(!isCluster(), 'runs only on the cluster (npm run test:e2e:cluster)');

let cluster: KeyframeCluster | undefined;

test.afterEach(async () => {
  await disposeKeyframe(cluster);
  cluster = undefined;
});

const onNode = (node: KeyframeProcess, path: string) => node.url(path);

test('a low-latency broadcast published to one app node plays from the other and through the balancer; the other node ends it; its recording plays everywhere', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  const rtmpPorts = [await getFreePort(), await getFreePort()] as const;
  cluster = await KeyframeCluster.start({ label: 'live-cluster', appEnv: [{ RTMP_PORT: String(rtmpPorts[0]) }, { RTMP_PORT: String(rtmpPorts[1]) }] });
  const [holder, other] = cluster.apps as [KeyframeProcess, KeyframeProcess];
  const token = await cluster.createToken();
  const mux: Mux = muxClient(cluster, token);
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] }, latency_mode: 'low' });
  const playbackId = stream.playback_ids![0]!.id;
  const publisher = publishTestPattern({ ingestUrl: `rtmp://127.0.0.1:${rtmpPorts[0]}/app/${stream.stream_key}` });
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
    await startLivePlayer(page, cluster.url(`/${playbackId}.m3u8`));
    await expect.poll(async () => (await livePlayerState(page)).currentTime, { timeout: 30_000 }).toBeGreaterThan(6);
    const state = await livePlayerState(page);
    expect(state.fatal, state.errors.join(', ')).toBeNull();
    expect(state.lowLatencyParts, 'hls.js played the parts').toBe(true);

    // The API on the node without the publisher ends the broadcast (the node bus tells the holder).
    const api = new Api(other.baseUrl, token);
    expect((await api.request('PUT', `/video/v1/live-streams/${stream.id}/complete`)).status).toBe(200);
    expect((await waitForLiveStreamStatus(mux, stream.id, 'idle')).status).toBe('idle');
    const ready = await new Api(cluster.baseUrl, token).waitForStatus(assetId, ['ready', 'errored'], 120_000);
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
