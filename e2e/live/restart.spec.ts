import { Api } from '../support/api';
import { startLiveKeyframe, waitForPlaylist } from '../support/live';
import { publishTestPattern } from '../support/live-publisher';
import { disposeKeyframe, expect, muxClient, restartKeyframe, test } from '../support/test';

// A server killed (kill -9) in the middle of a broadcast loses at most the segments in flight:
// the restarted server ends the broadcast and turns what reached the disk into a ready asset.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('kill -9 mid-broadcast: after the restart the recording so far is a ready asset and the stream is idle', async () => {
  const live = await startLiveKeyframe('live-kill9');
  let restarted: Awaited<ReturnType<typeof restartKeyframe>> | undefined;
  const token = await live.server.createToken();
  try {
    const mux = muxClient(live.server, token);
    const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] } });
    const broadcasting = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
    await waitForPlaylist(live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`), undefined, 20_000);
    const assetId = (await mux.video.liveStreams.retrieve(stream.id)).active_asset_id!;
    await sleep(Math.max(0, 10_000 - (Date.now() - broadcasting.startedAtMs)));
    const sentSeconds = (Date.now() - broadcasting.startedAtMs) / 1000;
    await live.server.kill9();
    await broadcasting.kill();

    restarted = await restartKeyframe(live.server, { label: 'live-kill9-restarted' });
    const api = new Api(restarted.baseUrl, token);
    const asset = await api.waitForStatus(assetId, ['ready', 'errored'], 120_000);
    expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
    expect(asset.is_live).toBe(false);
    expect(asset.duration, 'what reached the disk before the kill').toBeGreaterThan(sentSeconds - 5);
    expect(asset.duration).toBeLessThan(sentSeconds + 1);
    const stream2 = await muxClient(restarted, token).video.liveStreams.retrieve(stream.id);
    expect(stream2.status).toBe('idle');
    expect(stream2.recent_asset_ids).toEqual([assetId]);
  } finally {
    await disposeKeyframe(restarted, live.server);
  }
});
