import Mux from '@mux/mux-node';
import { Api, expectApiError, type Json } from '../support/api';
import { KeyframeCluster, type AccessToken, type KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';
import { WebhookReceiver } from '../../harness/webhook-receiver';

// The live streams API (mux-api-2.md §6) through @mux/mux-node's `video.liveStreams.*`, with raw
// HTTP for the refusals. No publisher connects here (the RTMP runtime has its own specs), so
// every stream stays idle or disabled, and the webhooks are the ones the API alone produces.

test.describe.configure({ mode: 'serial' });

const WELL_FORMED_UNKNOWN_ID = 'A'.repeat(20) + 'b'.repeat(24);
const STREAM_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ID = /^[0-9A-Za-z]{44}$/;

let server: KeyframeServer;
let token: AccessToken;
let api: Api;
let mux: Mux;
let receiver: WebhookReceiver;
/** Every stream key this spec saw; none may appear in the server's log. */
const issuedKeys = new Set<string>();

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'live-streams' });
  token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token, { maxRetries: 0 });
  receiver = await (await WebhookReceiver.start()).subscribeTo(server);
});

test.afterAll(async () => {
  await receiver?.close();
  await disposeKeyframe(server);
});

const remember = <T extends { stream_key: string }>(stream: T): T => {
  issuedKeys.add(stream.stream_key);
  return stream;
};

/** Event types about `objectId`, in the order they were recorded (the envelope's created_at, µs). */
const eventTypesOf = (objectId: string): string[] =>
  receiver
    .accepted(objectId)
    .map((entry) => entry.event)
    .sort((a: Json, b: Json) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
    .map((event: Json) => event.type as string);

let stream: Mux.Video.LiveStream;

test('create as in Mux’s example: idle, a UUID stream key, a public playback ID, the recording settings echoed; retrieve and list agree', async () => {
  stream = remember(await mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] } }));
  expect(stream).toEqual({
    id: expect.stringMatching(ID),
    created_at: expect.stringMatching(/^\d{10}$/),
    stream_key: expect.stringMatching(STREAM_KEY),
    srt_passphrase: expect.stringMatching(/^[0-9a-f]{32}$/),
    status: 'idle',
    playback_ids: [{ id: expect.stringMatching(ID), policy: 'public' }],
    new_asset_settings: { playback_policies: ['public'] },
    reconnect_window: 60,
    use_slate_for_standard_latency: false,
    latency_mode: 'standard',
    low_latency: false,
    reduced_latency: false,
    max_continuous_duration: 43200,
  });
  expect(Math.abs(Number(stream.created_at) - Date.now() / 1000)).toBeLessThan(300);
  expect(await mux.video.liveStreams.retrieve(stream.id)).toEqual(stream);

  const raw = await api.post('/video/v1/live-streams', { playback_policy: 'signed' });
  expect(raw.status, raw.text).toBe(201);
  remember(raw.json.data);

  const listed: Mux.Video.LiveStream[] = [];
  for await (const item of mux.video.liveStreams.list({ limit: 1 })) listed.push(item);
  expect(listed.map((item) => item.id)).toEqual([raw.json.data.id, stream.id]);
  expect(listed[1]).toEqual(stream);
  const byKey = await mux.video.liveStreams.list({ stream_key: stream.stream_key });
  expect(byKey.data.map((item) => item.id)).toEqual([stream.id]);
  expect((await mux.video.liveStreams.list({ status: 'disabled' })).data).toEqual([]);
  expect((await mux.video.liveStreams.list({ status: 'idle' })).data.map((item) => item.id)).toEqual([raw.json.data.id, stream.id]);
});

test('create options: latency modes and their reconnect-window defaults, deprecated booleans, test streams, slate, meta, passthrough, audio_only', async () => {
  const reduced = remember(await mux.video.liveStreams.create({ latency_mode: 'reduced' }));
  expect(reduced).toMatchObject({ latency_mode: 'reduced', reduced_latency: true, low_latency: false, reconnect_window: 0 });
  expect(reduced).not.toHaveProperty('playback_ids');
  expect(reduced).not.toHaveProperty('new_asset_settings');
  const low = remember(await mux.video.liveStreams.create({ low_latency: true, reconnect_window: 12.5 }));
  expect(low).toMatchObject({ latency_mode: 'low', low_latency: true, reconnect_window: 12.5 });
  const full = remember(
    await mux.video.liveStreams.create({
      test: true,
      audio_only: true,
      passthrough: 'show-42',
      meta: { title: 'Friday show' },
      use_slate_for_standard_latency: true,
      reconnect_slate_url: 'https://example.com/slate.png',
      max_continuous_duration: 3600,
      new_asset_settings: { playback_policy: ['signed'], static_renditions: [{ resolution: 'highest' }], master_access: 'temporary' },
    }),
  );
  expect(full).toMatchObject({
    test: true,
    audio_only: true,
    passthrough: 'show-42',
    meta: { title: 'Friday show' },
    use_slate_for_standard_latency: true,
    reconnect_slate_url: 'https://example.com/slate.png',
    // Test streams are cut after five minutes, as on Mux.
    max_continuous_duration: 300,
    new_asset_settings: { playback_policies: ['signed'], static_renditions: [{ resolution: 'highest' }], master_access: 'temporary' },
  });
});

test('recording quality premium: accepted on create under either name, and by PATCH over a stored encoding_tier', async () => {
  const created = await api.post('/video/v1/live-streams', { new_asset_settings: { playback_policies: ['public'], video_quality: 'premium' } });
  expect(created.status, created.text).toBe(201);
  expect(remember(created.json.data).new_asset_settings).toEqual({ playback_policies: ['public'], video_quality: 'premium' });
  const byTier = await api.post('/video/v1/live-streams', { new_asset_settings: { playback_policies: ['public'], encoding_tier: 'premium' } });
  expect(byTier.status, byTier.text).toBe(201);
  expect(remember(byTier.json.data).new_asset_settings).toEqual({ playback_policies: ['public'], encoding_tier: 'premium' });
  const smart = await api.post('/video/v1/live-streams', { new_asset_settings: { playback_policies: ['public'], encoding_tier: 'smart' } });
  expect(smart.status, smart.text).toBe(201);
  const smartId = remember(smart.json.data).id as string;
  const patched = await api.patch(`/video/v1/live-streams/${smartId}`, { new_asset_settings: { video_quality: 'premium' } });
  expect(patched.status, patched.text).toBe(200);
  expect(patched.json.data.new_asset_settings).toEqual({ playback_policies: ['public'], video_quality: 'premium' });
});

test('update: the documented subset changes, recording settings merge, and a retrieve shows the same', async () => {
  const updated = await mux.video.liveStreams.update(stream.id, {
    latency_mode: 'low',
    reconnect_window: 30,
    max_continuous_duration: 1200,
    passthrough: 'renamed',
    meta: { title: 'Now with a title' },
    reconnect_slate_url: 'https://example.com/slate.jpg',
    new_asset_settings: { master_access: 'temporary', meta: { title: 'Recording' } },
  });
  expect(updated).toMatchObject({
    id: stream.id,
    stream_key: stream.stream_key,
    latency_mode: 'low',
    low_latency: true,
    reconnect_window: 30,
    max_continuous_duration: 1200,
    passthrough: 'renamed',
    meta: { title: 'Now with a title' },
    reconnect_slate_url: 'https://example.com/slate.jpg',
    new_asset_settings: { playback_policies: ['public'], master_access: 'temporary', meta: { title: 'Recording' } },
  });
  expect(await mux.video.liveStreams.retrieve(stream.id)).toEqual(updated);
  // "" clears the slate and the passthrough.
  const cleared = await mux.video.liveStreams.update(stream.id, { reconnect_slate_url: '', passthrough: '' });
  expect(cleared).not.toHaveProperty('reconnect_slate_url');
  expect(cleared).not.toHaveProperty('passthrough');
  stream = cleared;
});

test('reset-stream-key: 201 with a new key; the old key no longer finds the stream', async () => {
  const { data, response } = await mux.video.liveStreams.resetStreamKey(stream.id).withResponse();
  expect(response.status).toBe(201);
  remember(data);
  expect(data.stream_key).toMatch(STREAM_KEY);
  expect(data.stream_key).not.toBe(stream.stream_key);
  // The SRT passphrase is renewed with the key.
  expect(data.srt_passphrase).not.toBe(stream.srt_passphrase);
  expect({ ...data, stream_key: stream.stream_key, srt_passphrase: stream.srt_passphrase }).toEqual(stream);
  expect((await mux.video.liveStreams.list({ stream_key: stream.stream_key })).data).toEqual([]);
  expect((await mux.video.liveStreams.list({ stream_key: data.stream_key })).data.map((item) => item.id)).toEqual([stream.id]);
  stream = data;
});

test('playback IDs: create (201), retrieve, look up by id (a live_stream object), delete (204), then 404', async () => {
  const created = await api.post(`/video/v1/live-streams/${stream.id}/playback-ids`, { policy: 'signed' });
  expect(created.status, created.text).toBe(201);
  expect(created.json).toEqual({ data: { id: expect.stringMatching(ID), policy: 'signed' } });
  const viaSdk = await mux.video.liveStreams.createPlaybackId(stream.id, {});
  expect(viaSdk).toEqual({ id: expect.stringMatching(ID), policy: 'public' });

  expect(await mux.video.liveStreams.retrievePlaybackId(stream.id, viaSdk.id)).toEqual(viaSdk);
  expect(await mux.video.playbackIds.retrieve(viaSdk.id)).toEqual({ id: viaSdk.id, policy: 'public', object: { type: 'live_stream', id: stream.id } });
  const withIds = await mux.video.liveStreams.retrieve(stream.id);
  expect(withIds.playback_ids?.map((playbackId) => playbackId.id)).toEqual([stream.playback_ids![0]!.id, created.json.data.id, viaSdk.id]);

  await mux.video.liveStreams.deletePlaybackId(stream.id, created.json.data.id);
  await mux.video.liveStreams.deletePlaybackId(stream.id, viaSdk.id);
  expectApiError(await api.get(`/video/v1/live-streams/${stream.id}/playback-ids/${viaSdk.id}`), 404, 'not_found');
  expectApiError(await api.delete(`/video/v1/live-streams/${stream.id}/playback-ids/${viaSdk.id}`), 404, 'not_found');
  await expect(mux.video.liveStreams.retrievePlaybackId(stream.id, viaSdk.id)).rejects.toBeInstanceOf(Mux.NotFoundError);
  expectApiError(await api.post(`/video/v1/live-streams/${stream.id}/playback-ids`, { policy: 'drm' }), 400, 'invalid_parameters', /drm/);
  expect((await mux.video.liveStreams.retrieve(stream.id)).playback_ids).toEqual(stream.playback_ids);
});

test('new-asset-settings/static-renditions: PUT replaces the list (echoed), DELETE removes it (204), a bad list is a 400', async () => {
  const withFiles = await mux.video.liveStreams.updateNewAssetSettingsStaticRenditions(stream.id, {
    static_renditions: [{ resolution: 'audio-only' }, { resolution: 'highest' }],
  });
  expect(withFiles.new_asset_settings).toEqual({
    playback_policies: ['public'],
    master_access: 'temporary',
    meta: { title: 'Recording' },
    static_renditions: [{ resolution: 'audio-only' }, { resolution: 'highest' }],
  });
  expectApiError(
    await api.request('PUT', `/video/v1/live-streams/${stream.id}/new-asset-settings/static-renditions`, {
      body: { static_renditions: [{ resolution: 'highest' }, { resolution: '720p' }] },
    }),
    400,
    'invalid_parameters',
    /highest/,
  );
  const raw = await api.delete(`/video/v1/live-streams/${stream.id}/new-asset-settings/static-renditions`);
  expect(raw.status, raw.text).toBe(204);
  await mux.video.liveStreams.deleteNewAssetSettingsStaticRenditions(stream.id);
  expect((await mux.video.liveStreams.retrieve(stream.id)).new_asset_settings).toEqual({
    playback_policies: ['public'],
    master_access: 'temporary',
    meta: { title: 'Recording' },
  });
});

test('complete on an idle stream, disable and enable: 200 {"data":{}}; the status follows; a disabled stream is listed as such', async () => {
  await mux.video.liveStreams.complete(stream.id);
  const complete = await api.request('PUT', `/video/v1/live-streams/${stream.id}/complete`);
  expect([complete.status, complete.json]).toEqual([200, { data: {} }]);
  expect((await mux.video.liveStreams.retrieve(stream.id)).status).toBe('idle');

  await mux.video.liveStreams.disable(stream.id);
  expect((await mux.video.liveStreams.retrieve(stream.id)).status).toBe('disabled');
  const again = await api.request('PUT', `/video/v1/live-streams/${stream.id}/disable`);
  expect([again.status, again.json]).toEqual([200, { data: {} }]);
  expect((await mux.video.liveStreams.list({ status: 'disabled' })).data.map((item) => item.id)).toEqual([stream.id]);
  // Settings still change while disabled, latency mode included (no broadcast runs).
  expect((await mux.video.liveStreams.update(stream.id, { latency_mode: 'standard' })).latency_mode).toBe('standard');

  await mux.video.liveStreams.enable(stream.id);
  const enabled = await api.request('PUT', `/video/v1/live-streams/${stream.id}/enable`);
  expect([enabled.status, enabled.json]).toEqual([200, { data: {} }]);
  expect((await mux.video.liveStreams.retrieve(stream.id)).status).toBe('idle');
});

test('assets?live_stream_id= lists only that stream’s recordings: none for a stream that never broadcast', async ({ media, fixtures }) => {
  const vod = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }], playback_policies: ['public'] });
  expect((await mux.video.assets.list({ limit: 100 })).data.map((asset) => asset.id)).toContain(vod.id);
  expect((await mux.video.assets.list({ live_stream_id: stream.id })).data).toEqual([]);
  const raw = await api.get(`/video/v1/assets?live_stream_id=${stream.id}`);
  expect([raw.status, raw.json.data]).toEqual([200, []]);
  expect(vod).not.toHaveProperty('live_stream_id');
  expect(vod).not.toHaveProperty('is_live');
});

test('webhooks from the API alone, in order: created, updated, disabled, enabled, deleted; the data is the stream', async () => {
  const own = remember(await mux.video.liveStreams.create({ playback_policies: ['public'], passthrough: 'hooks' }));
  await mux.video.liveStreams.update(own.id, { reconnect_window: 10 });
  await mux.video.liveStreams.disable(own.id);
  await mux.video.liveStreams.disable(own.id); // already disabled: no second event
  await mux.video.liveStreams.enable(own.id);
  await mux.video.liveStreams.enable(own.id); // already enabled: no second event
  await mux.video.liveStreams.delete(own.id);
  await expect(mux.video.liveStreams.retrieve(own.id)).rejects.toBeInstanceOf(Mux.NotFoundError);

  const deleted = await receiver.waitForEvent('video.live_stream.deleted', own.id);
  // All five, then a moment in which a duplicate (say, a second disabled) would arrive.
  await receiver.waitFor(() => (receiver.accepted(own.id).length >= 5 ? true : undefined), `5 events for ${own.id}`);
  await receiver.settle([], 0, { settleMs: 1_000 });
  expect(eventTypesOf(own.id)).toEqual([
    'video.live_stream.created',
    'video.live_stream.updated',
    'video.live_stream.disabled',
    'video.live_stream.enabled',
    'video.live_stream.deleted',
  ]);
  for (const entry of receiver.accepted(own.id)) {
    expect(entry.verifyError).toBeUndefined();
    expect(entry.event.object).toEqual({ type: 'live_stream', id: own.id });
    expect(Number.isInteger(entry.event.data.created_at)).toBe(true);
    expect(entry.event.data).toMatchObject({ id: own.id, stream_key: own.stream_key, passthrough: 'hooks' });
  }
  const byType = (type: string) => receiver.accepted(own.id).find((entry) => entry.event.type === type)!.event.data;
  expect(byType('video.live_stream.created')).toEqual({ ...own, created_at: Number(own.created_at) });
  expect(byType('video.live_stream.updated').reconnect_window).toBe(10);
  expect(byType('video.live_stream.disabled').status).toBe('disabled');
  expect(byType('video.live_stream.enabled').status).toBe('idle');
  expect(deleted.event.data).toMatchObject({ status: 'idle', reconnect_window: 10 });
});

test('the main stream’s own events: every API change was reported, in order', async () => {
  await mux.video.liveStreams.delete(stream.id);
  const expected = [
    'video.live_stream.created',
    'video.live_stream.updated', // PATCH
    'video.live_stream.updated', // PATCH clearing the slate
    'video.live_stream.updated', // reset-stream-key
    'video.live_stream.updated', // playback ID added (raw)
    'video.live_stream.updated', // playback ID added (SDK)
    'video.live_stream.updated', // playback ID deleted
    'video.live_stream.updated', // playback ID deleted
    'video.live_stream.updated', // static renditions set
    'video.live_stream.updated', // static renditions removed (the second DELETE changed nothing)
    'video.live_stream.disabled',
    'video.live_stream.updated', // latency mode while disabled
    'video.live_stream.enabled',
    'video.live_stream.deleted',
  ];
  // Deliveries may overtake each other; wait for all of them, then compare in recorded order.
  await receiver.waitFor(() => (receiver.accepted(stream.id).length >= expected.length ? true : undefined), `${expected.length} events for ${stream.id}`);
  await receiver.settle([], 0, { settleMs: 500 });
  expect(eventTypesOf(stream.id)).toEqual(expected);
});

test('refusals: baseline tier, bad ranges and modes, features Keyframe lacks, unknown ids', async () => {
  const create = (body: Json) => api.post('/video/v1/live-streams', body);
  expectApiError(await create({ new_asset_settings: { playback_policies: ['public'], encoding_tier: 'baseline' } }), 400, 'invalid_parameters', /smart tier only/);
  expectApiError(await create({ new_asset_settings: { video_quality: 'basic' } }), 400, 'invalid_parameters', /smart tier only/);
  expectApiError(await create({ latency_mode: 'ultra' }), 400, 'invalid_parameters', /^latency_mode: /);
  expectApiError(await create({ reconnect_window: 1800.5 }), 400, 'invalid_parameters', /^reconnect_window: .*1800/);
  expectApiError(await create({ reconnect_window: -1 }), 400, 'invalid_parameters', /^reconnect_window: /);
  expectApiError(await create({ max_continuous_duration: 59 }), 400, 'invalid_parameters', /^max_continuous_duration: .*60/);
  expectApiError(await create({ max_continuous_duration: 43201 }), 400, 'invalid_parameters', /^max_continuous_duration: .*43200/);
  expectApiError(await create({ passthrough: 'x'.repeat(256) }), 400, 'invalid_parameters', /^passthrough: /);
  expectApiError(await create({ meta: { title: 'x'.repeat(513) } }), 400, 'invalid_parameters', /^meta\.title: /);
  expectApiError(await create({ low_latency: true, latency_mode: 'standard' }), 400, 'invalid_parameters', /disagrees/);
  expectApiError(await create({ simulcast_targets: [{ url: 'https://live.example.com/app', stream_key: 'abc' }] }), 400, 'invalid_parameters', /^simulcast_targets\[0\]\.url: /);
  expectApiError(await create({ embedded_subtitles: [{ language_channel: 'cc5' }] }), 400, 'invalid_parameters', /^embedded_subtitles\[0\]\.language_channel: /);
  expectApiError(await create({ embedded_subtitles: [{ language_channel: 'cc2' }, { language_channel: 'cc2' }] }), 400, 'invalid_parameters', /cc2 is listed twice/);
  expectApiError(await create({ generated_subtitles: [{ name: 'Auto', language_code: 'fr' }] }), 400, 'invalid_parameters', /^generated_subtitles: language_code "fr".*English only/);
  expectApiError(await create({ generated_subtitles: [{ name: 'A' }, { name: 'B' }] }), 400, 'invalid_parameters', /At most one subtitle track/);
  expectApiError(await create({ srt_passphrase: 'secret' }), 400, 'invalid_parameters', /^srt_passphrase: .*SRT/);
  expectApiError(await create({ advanced_playback_policies: [{ policy: 'drm', drm_configuration_id: 'x' }] }), 400, 'invalid_parameters', /drm/);
  expectApiError(
    await create({ new_asset_settings: { inputs: [{ url: 'https://example.com/logo.png', overlay_settings: { vertical_align: 'top' } }] } }),
    400,
    'invalid_parameters',
    /new_asset_settings: inputs cannot be applied to a live stream's recording/,
  );
  await expect(mux.video.liveStreams.create({ simulcast_targets: [{ url: 'rtmp://live.example.com' }] })).rejects.toBeInstanceOf(Mux.BadRequestError);

  const other = remember(await mux.video.liveStreams.create({}));
  expectApiError(await api.patch(`/video/v1/live-streams/${other.id}`, { new_asset_settings: { video_quality: 'basic' } }), 400, 'invalid_parameters', /smart tier only/);
  expectApiError(await api.patch(`/video/v1/live-streams/${other.id}`, { new_asset_settings: { playback_policies: ['signed'] } }), 400, 'invalid_parameters', /playback_policies/);
  expectApiError(await api.patch(`/video/v1/live-streams/${other.id}`, { reconnect_window: 2000 }), 400, 'invalid_parameters', /^reconnect_window: /);
  // generated_subtitles are set (and cleared with []) through their own sub-resource.
  const captioned = await mux.video.liveStreams.updateGeneratedSubtitles(other.id, { generated_subtitles: [{ name: 'Auto' }] });
  expect(captioned.generated_subtitles).toEqual([{ name: 'Auto', language_code: 'en' }]);
  expect((await mux.video.liveStreams.retrieve(other.id)).generated_subtitles).toEqual([{ name: 'Auto', language_code: 'en' }]);
  expect((await mux.video.liveStreams.updateGeneratedSubtitles(other.id, { generated_subtitles: [] })).generated_subtitles).toBeUndefined();
  await expect(mux.video.liveStreams.updateGeneratedSubtitles(other.id, { generated_subtitles: [{ language_code: 'de' }] })).rejects.toBeInstanceOf(Mux.BadRequestError);
  const withCaptions = await mux.video.liveStreams.updateEmbeddedSubtitles(other.id, { embedded_subtitles: [{ language_channel: 'cc1' }, { name: 'Español', language_code: 'es', language_channel: 'cc3' }] });
  expect(withCaptions.embedded_subtitles).toEqual([
    { name: 'English CC', language_code: 'en', language_channel: 'cc1' },
    { name: 'Español', language_code: 'es', language_channel: 'cc3' },
  ]);
  expect((await mux.video.liveStreams.updateEmbeddedSubtitles(other.id, { embedded_subtitles: [] })).embedded_subtitles).toBeUndefined();
  expectApiError(await api.post(`/video/v1/live-streams/${WELL_FORMED_UNKNOWN_ID}/simulcast-targets`, { url: 'rtmp://x/app' }), 404, 'not_found');
  expectApiError(await api.get(`/video/v1/live-streams/${other.id}/no-such-thing`), 404, 'not_found');

  const unknown = `/video/v1/live-streams/${WELL_FORMED_UNKNOWN_ID}`;
  expectApiError(await api.get(unknown), 404, 'not_found', /Live stream/);
  expectApiError(await api.patch(unknown, { passthrough: 'x' }), 404, 'not_found');
  expectApiError(await api.delete(unknown), 404, 'not_found');
  expectApiError(await api.post(`${unknown}/reset-stream-key`), 404, 'not_found');
  for (const action of ['complete', 'disable', 'enable']) expectApiError(await api.request('PUT', `${unknown}/${action}`), 404, 'not_found');
  expectApiError(await api.post(`${unknown}/playback-ids`, { policy: 'public' }), 404, 'not_found');
  expectApiError(await api.request('PUT', `${unknown}/new-asset-settings/static-renditions`, { body: { static_renditions: [] } }), 404, 'not_found');
  await expect(mux.video.liveStreams.retrieve(WELL_FORMED_UNKNOWN_ID)).rejects.toBeInstanceOf(Mux.NotFoundError);
  expectApiError(await api.get('/video/v1/live-streams/not!an!id'), 400, 'invalid_parameters', /Live stream id "not!an!id" was invalid/);
  expectApiError(await api.get('/video/v1/live-streams?status=live'), 400, 'invalid_parameters', /^status: /);

  const readOnly = new Api(server.baseUrl, await server.createToken({ readOnly: true }));
  expect((await readOnly.get(`/video/v1/live-streams/${other.id}`)).status).toBe(200);
  expectApiError(await readOnly.post('/video/v1/live-streams', {}), 403, 'forbidden');
  expectApiError(await readOnly.request('PUT', `/video/v1/live-streams/${other.id}/disable`), 403, 'forbidden');
});

test('no stream key reaches the server log', async () => {
  expect(issuedKeys.size).toBeGreaterThan(5);
  // Keyframe's own processes: a cluster's test proxy (nginx) logs request URIs, `?stream_key=` filters included.
  const logs = server instanceof KeyframeCluster ? server.nodes.map((node) => node.logs()).join('\n') : server.logs();
  for (const key of issuedKeys) expect(logs.includes(key), `stream key ${key.slice(0, 8)}… in the log`).toBe(false);
});
