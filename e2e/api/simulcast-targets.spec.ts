import Mux from '@mux/mux-node';
import { WebhookReceiver } from '../../harness/webhook-receiver';
import { Api, expectApiError } from '../support/api';
import type { AccessToken, KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';

// Simulcast targets through @mux/mux-node's `video.liveStreams.*SimulcastTarget` (mux-api-2.md §6),
// with raw HTTP for the refusals. No publisher connects here (the restreams have their own spec,
// e2e/live/simulcast.spec.ts), so every target stays idle; the webhooks are the API's own.

test.describe.configure({ mode: 'serial' });

const WELL_FORMED_UNKNOWN_ID = 'A'.repeat(20) + 'b'.repeat(24);
const ID = /^[0-9A-Za-z]{44}$/;
const YOUTUBE_LIKE = 'rtmp://a.rtmp.example.com/live2';
const SRT_TARGET = 'srt://srt.example.com:9000?streamid=abc&passphrase=0123456789';

let server: KeyframeServer;
let token: AccessToken;
let api: Api;
let mux: Mux;
let receiver: WebhookReceiver;

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'simulcast-targets' });
  token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token, { maxRetries: 0 });
  receiver = await (await WebhookReceiver.start()).subscribeTo(server);
});

test.afterAll(async () => {
  await receiver?.close();
  await disposeKeyframe(server);
});

test('create (201, idle), retrieve, listed on the stream oldest first, delete (204), then 404', async () => {
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'] });
  expect(stream).not.toHaveProperty('simulcast_targets');

  const { data: youtube, response } = await mux.video.liveStreams
    .createSimulcastTarget(stream.id, { url: YOUTUBE_LIKE, stream_key: 'yt-key', passthrough: 'YouTube' })
    .withResponse();
  expect(response.status).toBe(201);
  expect(youtube).toEqual({ id: expect.stringMatching(ID), status: 'idle', url: YOUTUBE_LIKE, stream_key: 'yt-key', passthrough: 'YouTube' });
  const srt = await mux.video.liveStreams.createSimulcastTarget(stream.id, { url: SRT_TARGET });
  expect(srt).toEqual({ id: expect.stringMatching(ID), status: 'idle', url: SRT_TARGET });

  expect(await mux.video.liveStreams.retrieveSimulcastTarget(stream.id, youtube.id)).toEqual(youtube);
  expect((await mux.video.liveStreams.retrieve(stream.id)).simulcast_targets).toEqual([youtube, srt]);
  const listed = await mux.video.liveStreams.list({ stream_key: stream.stream_key });
  expect(listed.data[0]?.simulcast_targets).toEqual([youtube, srt]);

  const raw = await api.delete(`/video/v1/live-streams/${stream.id}/simulcast-targets/${youtube.id}`);
  expect([raw.status, raw.text]).toEqual([204, '']);
  await expect(mux.video.liveStreams.retrieveSimulcastTarget(stream.id, youtube.id)).rejects.toBeInstanceOf(Mux.NotFoundError);
  expectApiError(await api.delete(`/video/v1/live-streams/${stream.id}/simulcast-targets/${youtube.id}`), 404, 'not_found', /Simulcast target/);
  await mux.video.liveStreams.deleteSimulcastTarget(stream.id, srt.id);
  expect(await mux.video.liveStreams.retrieve(stream.id)).not.toHaveProperty('simulcast_targets');
});

test('simulcast_targets in the create body: created with the stream, in the order sent', async () => {
  const stream = await mux.video.liveStreams.create({
    playback_policies: ['public'],
    simulcast_targets: [{ url: SRT_TARGET, passthrough: 'first' }, { url: YOUTUBE_LIKE, stream_key: 'yt-key' }],
  });
  expect(stream.simulcast_targets).toEqual([
    { id: expect.stringMatching(ID), status: 'idle', url: SRT_TARGET, passthrough: 'first' },
    { id: expect.stringMatching(ID), status: 'idle', url: YOUTUBE_LIKE, stream_key: 'yt-key' },
  ]);
  expect((await mux.video.liveStreams.retrieve(stream.id)).simulcast_targets).toEqual(stream.simulcast_targets);
  for (const target of stream.simulcast_targets!) expect(await mux.video.liveStreams.retrieveSimulcastTarget(stream.id, target.id)).toEqual(target);
  // Deleting the stream takes its targets with it.
  await mux.video.liveStreams.delete(stream.id);
  expectApiError(await api.get(`/video/v1/live-streams/${stream.id}/simulcast-targets/${stream.simulcast_targets![0]!.id}`), 404, 'not_found');
});

test('webhooks: created and deleted, the data the target plus its live_stream_id', async () => {
  const stream = await mux.video.liveStreams.create({});
  const target = await mux.video.liveStreams.createSimulcastTarget(stream.id, { url: YOUTUBE_LIKE, stream_key: 'yt-key', passthrough: 'hooks' });
  await mux.video.liveStreams.deleteSimulcastTarget(stream.id, target.id);
  const created = await receiver.waitForEvent('video.live_stream.simulcast_target.created', target.id);
  const deleted = await receiver.waitForEvent('video.live_stream.simulcast_target.deleted', target.id);
  for (const entry of [created, deleted]) {
    expect(entry.verifyError).toBeUndefined();
    expect(entry.event.object).toEqual({ type: 'simulcast_target', id: target.id });
    expect(entry.event.data).toEqual({ ...target, live_stream_id: stream.id });
  }
});

test('refusals: bad URLs and keys (400), a stream that is not idle (400), unknown ids (404 or 400), a read-only token (403)', async () => {
  const stream = await mux.video.liveStreams.create({});
  const targets = `/video/v1/live-streams/${stream.id}/simulcast-targets`;
  await expect(mux.video.liveStreams.createSimulcastTarget(stream.id, { url: 'https://live.example.com/app' })).rejects.toBeInstanceOf(Mux.BadRequestError);
  expectApiError(await api.post(targets, { url: 'https://live.example.com/app' }), 400, 'invalid_parameters', /^url: must be an rtmp:\/\/, rtmps:\/\/ or srt:\/\/ URL$/);
  expectApiError(await api.post(targets, { url: 'rtmp:///app' }), 400, 'invalid_parameters', /^url: must include a host name$/);
  expectApiError(await api.post(targets, { url: 'rtmp://live.example.com' }), 400, 'invalid_parameters', /^url: .*application name/);
  expectApiError(await api.post(targets, { url: 'srt://srt.example.com?streamid=abc' }), 400, 'invalid_parameters', /^url: .*port/);
  expectApiError(await api.post(targets, { url: `rtmp://live.example.com/${'a'.repeat(1024)}` }), 400, 'invalid_parameters', /^url: must be at most 1024 characters$/);
  expectApiError(await api.post(targets, {}), 400, 'invalid_parameters', /^url: is required/);
  expectApiError(await api.post(targets, { url: YOUTUBE_LIKE, stream_key: 'k'.repeat(256) }), 400, 'invalid_parameters', /^stream_key: /);
  expectApiError(await api.post(targets, { url: SRT_TARGET, stream_key: 'abc' }), 400, 'invalid_parameters', /^stream_key: is only used with rtmp/);
  expectApiError(await api.post(targets, { url: YOUTUBE_LIKE, passthrough: 'p'.repeat(256) }), 400, 'invalid_parameters', /^passthrough: /);
  expect(await mux.video.liveStreams.retrieve(stream.id)).not.toHaveProperty('simulcast_targets');

  // Only an idle stream's targets change (a disabled one is not idle).
  const target = await mux.video.liveStreams.createSimulcastTarget(stream.id, { url: YOUTUBE_LIKE });
  await mux.video.liveStreams.disable(stream.id);
  expectApiError(await api.post(targets, { url: YOUTUBE_LIKE }), 400, 'invalid_parameters', /only be created while the live stream is idle; it is disabled/);
  await expect(mux.video.liveStreams.deleteSimulcastTarget(stream.id, target.id)).rejects.toBeInstanceOf(Mux.BadRequestError);
  await mux.video.liveStreams.enable(stream.id);
  await mux.video.liveStreams.deleteSimulcastTarget(stream.id, target.id);

  expectApiError(await api.post(`/video/v1/live-streams/${WELL_FORMED_UNKNOWN_ID}/simulcast-targets`, { url: YOUTUBE_LIKE }), 404, 'not_found', /Live stream/);
  expectApiError(await api.get(`${targets}/${WELL_FORMED_UNKNOWN_ID}`), 404, 'not_found', /Simulcast target/);
  expectApiError(await api.get(`${targets}/not!an!id`), 400, 'invalid_parameters', /Simulcast target id "not!an!id" was invalid/);

  const readOnly = new Api(server.baseUrl, await server.createToken({ readOnly: true }));
  expectApiError(await readOnly.post(targets, { url: YOUTUBE_LIKE }), 403, 'forbidden');
});
