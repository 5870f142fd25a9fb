import { startLiveKeyframe, type LiveServer } from '../support/live';
import { publishTestPattern } from '../support/live-publisher';
import { disposeKeyframe, expect, muxClient, test } from '../support/test';
import { WebhookReceiver } from '../../harness/webhook-receiver';

// `max_continuous_duration` (at least 60 s, as Mux allows) ends a broadcast that runs longer: the
// publisher is disconnected, the stream goes idle and the recording is as long as the limit.

let live: LiveServer | undefined;
let receiver: WebhookReceiver | undefined;

test.afterAll(async () => {
  await receiver?.close();
  await disposeKeyframe(live?.server);
});

test('a broadcast is cut at max_continuous_duration', async () => {
  live = await startLiveKeyframe('live-max-duration');
  receiver = await (await WebhookReceiver.start()).subscribeTo(live.server);
  const mux = muxClient(live.server, await live.server.createToken());
  const stream = await mux.video.liveStreams.create({
    playback_policies: ['public'],
    new_asset_settings: { playback_policies: ['public'] },
    max_continuous_duration: 60,
    reconnect_window: 30,
  });
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  try {
    const code = await Promise.race([publisher.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 80_000))]);
    expect(code, 'the publisher was disconnected at the limit').not.toBe('running');
    const cutAfter = (Date.now() - publisher.startedAtMs) / 1000;
    expect(cutAfter).toBeGreaterThan(59);
    expect(cutAfter).toBeLessThan(70);
  } finally {
    await publisher.kill();
  }
  await receiver.waitForEvent('video.live_stream.idle', stream.id, { timeoutMs: 10_000 });
  const { recent_asset_ids: recent } = await mux.video.liveStreams.retrieve(stream.id);
  await expect.poll(async () => (await mux.video.assets.retrieve(recent![0]!)).status, { timeout: 90_000, intervals: [1_100] }).toBe('ready');
  const asset = await mux.video.assets.retrieve(recent![0]!);
  expect(asset.duration).toBeGreaterThan(55);
  expect(asset.duration).toBeLessThanOrEqual(61);
});
