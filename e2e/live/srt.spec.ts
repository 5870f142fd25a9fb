import type Mux from '@mux/mux-node';
import { expectFirstLiveSegmentDecodes, startLiveKeyframeWithSrt, waitForLiveStreamStatus } from '../support/live';
import { expectPublisherRefused, publishTestPattern } from '../support/live-publisher';
import { disposeKeyframe, expect, muxClient, test } from '../support/test';

// SRT ingest, as Mux has it: one UDP port for every stream, the stream chosen by `streamid` and
// the stream's own `srt_passphrase` encrypting the link. ffmpeg's libsrt publishes MPEG-TS as a
// broadcaster's encoder does; the gateway relays it to a listener of that stream alone.

test.describe.configure({ mode: 'serial' });

let live: Awaited<ReturnType<typeof startLiveKeyframeWithSrt>>;
let mux: Mux;

test.beforeAll(async () => {
  live = await startLiveKeyframeWithSrt('live-srt');
  mux = muxClient(live.server, await live.server.createToken());
});

test.afterAll(async () => {
  await disposeKeyframe(live?.server);
});

const createStream = () => mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] }, reconnect_window: 0 });

const waitForStatus = (id: string, status: string) => waitForLiveStreamStatus(mux, id, status);

test('a publisher over SRT with the stream key and passphrase goes live: active_ingest_protocol srt, live HLS that decodes, a live_srt recording', async ({}, testInfo) => {
  const stream = await createStream();
  expect(stream.srt_passphrase, 'every stream has its own passphrase').toMatch(/^[0-9a-f]{32}$/);
  const publisher = publishTestPattern({ ingestUrl: live.srtUrl(stream.stream_key, stream.srt_passphrase) });
  try {
    await expectFirstLiveSegmentDecodes(live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`), testInfo.outputDir, 'srt-live');

    expect(await waitForStatus(stream.id, 'active')).toMatchObject({ status: 'active', active_ingest_protocol: 'srt' });
  } finally {
    await publisher.stop();
  }
  const ended = await waitForStatus(stream.id, 'idle');
  expect(ended.status).toBe('idle');
  expect(ended.recent_asset_ids?.length, 'the broadcast was recorded').toBe(1);
  const recording = await mux.video.assets.retrieve(ended.recent_asset_ids![0]!);
  expect(recording.ingest_type).toBe('live_srt');
});

test('an unknown key, a wrong passphrase, no passphrase and no streamid are refused at connect; the stream stays idle', async () => {
  const stream = await createStream();
  await expectPublisherRefused(publishTestPattern({ ingestUrl: live.srtUrl('00000000-0000-0000-0000-000000000000', stream.srt_passphrase), seconds: 10 }), 'unknown key');
  await expectPublisherRefused(publishTestPattern({ ingestUrl: live.srtUrl(stream.stream_key, 'not-the-passphrase'), seconds: 10 }), 'wrong passphrase');
  await expectPublisherRefused(publishTestPattern({ ingestUrl: live.srtUrl(stream.stream_key), seconds: 10 }), 'no passphrase');
  await expectPublisherRefused(publishTestPattern({ ingestUrl: `srt://127.0.0.1:${live.srtPort}`, seconds: 10 }), 'no streamid');
  expect((await mux.video.liveStreams.retrieve(stream.id)).status).toBe('idle');
});

test("SRT's access-control streamid (#!::r=key,m=publish) is understood; a second publisher of a live key is refused over SRT and over RTMP", async () => {
  const stream = await createStream();
  const publisher = publishTestPattern({ ingestUrl: live.srtUrl(`#!::r=${stream.stream_key},m=publish`, stream.srt_passphrase) });
  try {
    expect(await waitForStatus(stream.id, 'active')).toMatchObject({ status: 'active', active_ingest_protocol: 'srt' });
    await expectPublisherRefused(publishTestPattern({ ingestUrl: live.srtUrl(stream.stream_key, stream.srt_passphrase), seconds: 10 }), 'a second SRT publisher');
    await expectPublisherRefused(publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key), seconds: 10 }), 'a second publisher over RTMP');
    expect(publisher.process.exitCode, `the first publisher is still connected (${publisher.stderr().slice(-300)})`).toBeNull();
  } finally {
    await publisher.stop();
  }
});
