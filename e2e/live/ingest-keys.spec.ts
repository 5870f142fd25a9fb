import type Mux from '@mux/mux-node';
import { randomBytes } from 'node:crypto';
import { startLiveKeyframe, waitForPlaylist, type LiveServer } from '../support/live';
import { expectPublisherRefused, publishTestPattern } from '../support/live-publisher';
import { disposeKeyframe, expect, muxClient, test } from '../support/test';
import { sendRtmpJunk } from '../../harness/rtmp-junk';
import { WebhookReceiver } from '../../harness/webhook-receiver';

// Who may publish: only a known, enabled stream key, once at a time, H.264 + AAC. A refused
// publisher is told so at connect (ffmpeg exits with an error, nothing is recorded); a client
// speaking junk is dropped without touching the broadcasts.

test.describe.configure({ mode: 'serial' });

let live: LiveServer;
let mux: Mux;
let receiver: WebhookReceiver;

test.beforeAll(async () => {
  live = await startLiveKeyframe('live-keys');
  mux = muxClient(live.server, await live.server.createToken());
  receiver = await (await WebhookReceiver.start()).subscribeTo(live.server);
});

test.afterAll(async () => {
  await receiver?.close();
  await disposeKeyframe(live?.server);
});

const createStream = () => mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] }, reconnect_window: 0 });

test('an unknown stream key is refused at connect', async () => {
  await expectPublisherRefused(publishTestPattern({ ingestUrl: live.rtmpUrl('00000000-0000-0000-0000-000000000000') }), 'unknown key');
});

test('a disabled stream refuses its publisher until enabled again', async () => {
  const stream = await createStream();
  await mux.video.liveStreams.disable(stream.id);
  await expectPublisherRefused(publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key), seconds: 10 }), 'disabled stream');
  expect(receiver.about(stream.id).map((entry) => entry.event.type)).not.toContain('video.live_stream.connected');
  await mux.video.liveStreams.enable(stream.id);
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  await waitForPlaylist(live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`), undefined, 20_000);
  await publisher.stop();
  await receiver.waitForEvent('video.live_stream.idle', stream.id, { timeoutMs: 20_000 });
});

test('a second publisher on a key in use is refused; the first goes on', async () => {
  const stream = await createStream();
  const liveUrl = live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`);
  const first = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  await waitForPlaylist(liveUrl, undefined, 20_000);
  await expectPublisherRefused(publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key), seconds: 10 }), 'duplicate publisher');
  expect(first.process.exitCode, 'the first publisher is still connected').toBeNull();
  expect((await mux.video.liveStreams.retrieve(stream.id)).status).toBe('active');
  await first.stop();
});

test('resetting the stream key drops the publisher; the old key is refused, the new one works', async () => {
  const stream = await createStream();
  const liveUrl = live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`);
  const first = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  await waitForPlaylist(liveUrl, undefined, 20_000);
  const reset = await mux.video.liveStreams.resetStreamKey(stream.id);
  expect(reset.stream_key).not.toBe(stream.stream_key);
  await Promise.race([first.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  expect(first.process.exitCode ?? first.process.signalCode, 'the publisher with the old key was disconnected').not.toBeNull();
  await expectPublisherRefused(publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key), seconds: 10 }), 'old key');
  await receiver.waitForEvent('video.live_stream.idle', stream.id, { timeoutMs: 20_000 });
  const again = publishTestPattern({ ingestUrl: live.rtmpUrl(reset.stream_key) });
  await expect.poll(async () => (await mux.video.liveStreams.retrieve(stream.id)).status, { timeout: 20_000 }).toBe('active');
  await again.stop();
});

test('video other than H.264 is refused with a reason', async () => {
  const stream = await createStream();
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key), videoCodec: 'flv1', seconds: 10 });
  await expectPublisherRefused(publisher, 'FLV1 video');
  expect(publisher.stderr(), 'the encoder is told why').toMatch(/not supported.*H\.264/);
  expect((await mux.video.liveStreams.retrieve(stream.id)).status).toBe('idle');
  expect(live.server.logs(), 'the stream key is never logged').not.toContain(stream.stream_key);
});

test('a signed live playback ID: 403 without a token; with one every URL in the playlists carries the proof and plays', async () => {
  const stream = await mux.video.liveStreams.create({ playback_policies: ['signed'], reconnect_window: 0 });
  const playbackId = stream.playback_ids![0]!.id;
  const key = await mux.system.signingKeys.create();
  const token = await mux.jwt.signPlaybackId(playbackId, { keyId: key.id, keySecret: key.private_key!, type: 'video' });
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  try {
    const unsigned = live.server.url(`/${playbackId}.m3u8`);
    const signed = `${unsigned}?token=${token}`;
    const multivariant = await waitForPlaylist(signed, undefined, 20_000);
    expect((await fetch(unsigned)).status).toBe(403);
    const variant = multivariant.split('\n').find((line) => line && !line.startsWith('#'))!;
    expect(variant).toMatch(/\?kfp=/);
    const mediaUrl = new URL(variant, signed).toString();
    const media = await waitForPlaylist(mediaUrl);
    const segment = media.split('\n').find((line) => line && !line.startsWith('#'))!;
    expect(segment).toMatch(/\?kfp=/);
    expect(media).toMatch(/#EXT-X-MAP:URI="[^"]+\?kfp=[^"]+"/);
    expect((await fetch(new URL(segment, mediaUrl))).status).toBe(200);
    expect((await fetch(new URL(segment.replace(/\?kfp=.*$/, ''), mediaUrl))).status, 'a segment without the proof').toBe(403);
  } finally {
    await publisher.stop();
  }
});

test('disable and delete end a running broadcast: the publisher is dropped and the recording is kept', async () => {
  for (const action of ['disable', 'delete'] as const) {
    const stream = await createStream();
    const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
    await expect.poll(async () => (await mux.video.liveStreams.retrieve(stream.id)).active_asset_id, { timeout: 20_000 }).toBeTruthy();
    const assetId = (await mux.video.liveStreams.retrieve(stream.id)).active_asset_id!;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    if (action === 'disable') await mux.video.liveStreams.disable(stream.id);
    else await mux.video.liveStreams.delete(stream.id);
    const code = await Promise.race([publisher.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 10_000))]);
    if (code === 'running') await publisher.kill();
    expect(code, `${action}: the publisher is disconnected`).not.toBe('running');
    if (action === 'disable') {
      const disabled = await mux.video.liveStreams.retrieve(stream.id);
      expect(disabled.status, 'a disabled stream stays disabled after its broadcast ends').toBe('disabled');
      expect(disabled.active_asset_id).toBeUndefined();
    }
    await expect.poll(async () => (await mux.video.assets.retrieve(assetId)).status, { timeout: 60_000, intervals: [1_100] }).toBe('ready');
    const asset = await mux.video.assets.retrieve(assetId);
    expect(asset.duration).toBeGreaterThan(2);
    expect(asset.live_stream_id).toBe(stream.id);
  }
});

test('an audio_only stream drops the video: one AAC rendition, and an audio-only recording', async () => {
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] }, audio_only: true, reconnect_window: 0 });
  const liveUrl = live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`);
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  try {
    const multivariant = await waitForPlaylist(liveUrl, undefined, 20_000);
    const variants = multivariant.split('\n').filter((line) => line.startsWith('#EXT-X-STREAM-INF'));
    expect(variants).toHaveLength(1);
    expect(variants[0]).toContain('CODECS="mp4a.40.2"');
    expect(variants[0]).not.toContain('RESOLUTION');
    await new Promise((resolve) => setTimeout(resolve, 4_000));
  } finally {
    await publisher.stop();
  }
  const { recent_asset_ids: recent } = await mux.video.liveStreams.retrieve(stream.id);
  await expect.poll(async () => (await mux.video.assets.retrieve(recent![0]!)).status, { timeout: 60_000, intervals: [1_100] }).toBe('ready');
  const asset = await mux.video.assets.retrieve(recent![0]!);
  expect(asset.tracks?.map((track) => track.type)).toEqual(['audio']);
});

test('junk instead of an RTMP handshake, or after it, is dropped; a broadcast in progress goes on', async () => {
  const stream = await createStream();
  const liveUrl = live.server.url(`/${stream.playback_ids![0]!.id}.m3u8`);
  const publisher = publishTestPattern({ ingestUrl: live.rtmpUrl(stream.stream_key) });
  const mediaUrl = new URL((await waitForPlaylist(liveUrl, undefined, 20_000)).split('\n').find((line) => line && !line.startsWith('#'))!, liveUrl).toString();
  const lastSegment = async () => Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(await (await fetch(mediaUrl)).text())?.[1] ?? -1) + (await (await fetch(mediaUrl)).text()).split('#EXTINF').length;
  const before = await lastSegment();

  const cases = {
    'junk instead of a handshake': await sendRtmpJunk({ port: live.rtmpPort, junk: randomBytes(8192), handshake: false }),
    'junk after the handshake': await sendRtmpJunk({ port: live.rtmpPort, junk: randomBytes(64 * 1024), handshake: true }),
    // A chunk announcing a 16 MB command before any publish: refused as it starts, not buffered.
    'a 16 MB message announced after the handshake': await sendRtmpJunk({ port: live.rtmpPort, junk: Buffer.from([0x03, 0, 0, 0, 0xff, 0xff, 0xff, 0x14, 0, 0, 0, 0, 0x02]), handshake: true }),
  };
  for (const what of ['junk after the handshake', 'a 16 MB message announced after the handshake'] as const) expect(cases[what].handshakeAnswered, `${what}: the server answers the handshake`).toBe(true);
  for (const [what, { closedAfterMs }] of Object.entries(cases)) expect(closedAfterMs, `${what}: the server closes the connection`).not.toBeNull();

  expect(publisher.process.exitCode, 'the publisher is still connected').toBeNull();
  await expect.poll(lastSegment, { timeout: 10_000, message: 'the broadcast goes on' }).toBeGreaterThan(before + 2);
  expect((await fetch(live.server.url('/api/health'))).status).toBe(200);
  await publisher.stop();
});
