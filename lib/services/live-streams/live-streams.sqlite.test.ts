import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { getDb } from '../../db/client';
import { setUpTestInstallation, type TestInstallation } from '../../db/test-support/test-installation';
import { listAssets } from '../assets/list-assets';
import { registerBroadcastStopper, type BroadcastStopReason } from '../live/broadcast-control';
import { markConnected, markRecordingAndActive } from '../live/broadcast-state';
import { lookupPlaybackId } from '../playback-ids/lookup-playback-id';
import { createWebhookEndpoint } from '../webhooks/create-webhook-endpoint';
import { completeLiveStream } from './complete-live-stream';
import { createLiveStream } from './create-live-stream';
import { deleteLiveStream } from './delete-live-stream';
import { disableLiveStream } from './disable-live-stream';
import { enableLiveStream } from './enable-live-stream';
import { getLiveStream } from './get-live-stream';
import { findLivePlaybackId } from '../records/find-live-stream';
import { createLivePlaybackId, deleteLivePlaybackId } from './live-playback-ids';
import { listLiveStreams } from './list-live-streams';
import { resetStreamKey } from './reset-stream-key';
import { updateLiveStream } from './update-live-stream';

// The live stream services on a real SQLite database. The broadcast runtime is another
// component; in its place a stopper records each call together with what the database held at
// that moment, which is what the order of "change the row" and "stop the broadcast" is about.

type StopCall = { liveStreamId: string; reason: BroadcastStopReason; row: { status: string; streamKey: string } | null };

const SRT_PASSPHRASE = /^[0-9a-f]{32}$/;

let installation: TestInstallation | undefined;
let stops: StopCall[] = [];

beforeAll(async () => {
  installation = await setUpTestInstallation('live-streams');
  // Events are recorded only when an endpoint would receive them.
  await createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks' });
  registerBroadcastStopper(async (liveStreamId, reason) => {
    const row = await getDb().liveStream.findUnique({ where: { id: liveStreamId }, select: { status: true, streamKey: true } });
    stops.push({ liveStreamId, reason, row });
  });
});

beforeEach(() => {
  stops = [];
});

afterAll(async () => {
  await installation?.tearDown();
});

const eventsOf = async (liveStreamId: string): Promise<string[]> => {
  const rows = await getDb().$queryRawUnsafe<Array<{ type: string }>>('SELECT type FROM "WebhookEvent" WHERE "objectId" = ? ORDER BY rowid', liveStreamId);
  return rows.map((row) => row.type);
};

const streamIdWithKey = async (streamKey: string) => (await getDb().liveStream.findUnique({ where: { streamKey }, select: { id: true } }))?.id ?? null;

const markActive = (liveStreamId: string) => getDb().liveStream.update({ where: { id: liveStreamId }, data: { status: 'active', connectedAt: new Date() } });

describe('live streams on SQLite', () => {
  test('create: idle, a UUID stream key, playback IDs, and video.live_stream.created', async () => {
    const stream = await createLiveStream({ body: { playback_policies: ['public', 'signed'], new_asset_settings: { playback_policies: ['public'] } } });
    expect(stream).toMatchObject({ status: 'idle', latencyMode: 'standard', reconnectWindow: 60, newAssetSettingsJson: '{"playback_policies":["public"]}' });
    expect(stream.streamKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stream.playbackIds.map((playbackId) => playbackId.policy).sort()).toEqual(['public', 'signed']);
    expect(await eventsOf(stream.id)).toEqual(['video.live_stream.created']);
  });

  test('create: every stream gets an SRT passphrase of its own, which get and list return', async () => {
    const first = await createLiveStream({ body: {} });
    const second = await createLiveStream({ body: {} });
    expect(first.srtPassphrase).toMatch(SRT_PASSPHRASE);
    expect(second.srtPassphrase).toMatch(SRT_PASSPHRASE);
    expect(second.srtPassphrase).not.toBe(first.srtPassphrase);
    expect((await getLiveStream({ liveStreamId: first.id })).srtPassphrase).toBe(first.srtPassphrase);
    expect((await listLiveStreams({ streamKey: second.streamKey })).map((stream) => stream.srtPassphrase)).toEqual([second.srtPassphrase]);
  });

  test('a live playback ID is found by id; the public lookup names the stream', async () => {
    const stream = await createLiveStream({ body: { playback_policy: 'public' } });
    const playbackId = stream.playbackIds[0]!.id;
    expect(await findLivePlaybackId(playbackId)).toEqual({ id: playbackId, policy: 'public', liveStreamId: stream.id });
    expect(await findLivePlaybackId('P'.repeat(44))).toBeNull();
    expect(await lookupPlaybackId({ playbackId })).toEqual({ id: playbackId, policy: 'public', object: { type: 'live_stream', id: stream.id } });
  });

  test('reset-stream-key: the old key is dead before the publisher is dropped', async () => {
    const stream = await createLiveStream({ body: {} });
    const reset = await resetStreamKey({ liveStreamId: stream.id });
    expect(reset.streamKey).not.toBe(stream.streamKey);
    expect(reset.srtPassphrase).toMatch(SRT_PASSPHRASE);
    expect(reset.srtPassphrase).not.toBe(stream.srtPassphrase);
    expect(await streamIdWithKey(stream.streamKey)).toBeNull();
    expect(await streamIdWithKey(reset.streamKey)).toBe(stream.id);
    expect(stops).toEqual([{ liveStreamId: stream.id, reason: 'reset-key', row: { status: 'idle', streamKey: reset.streamKey } }]);
    expect(await eventsOf(stream.id)).toEqual(['video.live_stream.created', 'video.live_stream.updated']);
  });

  test('a recording’s ingest type follows the protocol its publisher connected with', async () => {
    const ingestTypeOfRecording = async (ingestProtocol: 'rtmp' | 'rtmps' | 'srt', assetId: string) => {
      const stream = await createLiveStream({ body: { new_asset_settings: { playback_policies: ['public'] } } });
      await markConnected(stream.id, { id: 'node-a', url: 'http://127.0.0.1:3001' }, true, ingestProtocol);
      await markRecordingAndActive({ liveStreamId: stream.id, assetId });
      return (await getDb().asset.findUniqueOrThrow({ where: { id: assetId } })).ingestType;
    };
    expect(await ingestTypeOfRecording('srt', 'S'.repeat(44))).toBe('live_srt');
    expect(await ingestTypeOfRecording('rtmps', 'T'.repeat(44))).toBe('live_rtmp');
  });

  test('disable: disabled (with its event) before the broadcast is stopped; again is a no-op; enable makes it idle', async () => {
    const stream = await createLiveStream({ body: {} });
    await markActive(stream.id);
    await disableLiveStream({ liveStreamId: stream.id });
    expect(stops).toEqual([{ liveStreamId: stream.id, reason: 'disable', row: { status: 'disabled', streamKey: stream.streamKey } }]);
    await disableLiveStream({ liveStreamId: stream.id });
    expect(stops).toHaveLength(1);
    await enableLiveStream({ liveStreamId: stream.id });
    await enableLiveStream({ liveStreamId: stream.id });
    expect((await getDb().liveStream.findUniqueOrThrow({ where: { id: stream.id } })).status).toBe('idle');
    expect(await eventsOf(stream.id)).toEqual(['video.live_stream.created', 'video.live_stream.disabled', 'video.live_stream.enabled']);
  });

  test('complete stops only a running broadcast', async () => {
    const stream = await createLiveStream({ body: {} });
    await completeLiveStream({ liveStreamId: stream.id });
    expect(stops).toEqual([]);
    await markActive(stream.id);
    await completeLiveStream({ liveStreamId: stream.id });
    expect(stops.map((call) => call.reason)).toEqual(['complete']);
  });

  test('latency_mode cannot change during a broadcast; other settings can', async () => {
    const stream = await createLiveStream({ body: {} });
    await markActive(stream.id);
    await expect(updateLiveStream({ liveStreamId: stream.id, body: { latency_mode: 'low' } })).rejects.toMatchObject({ type: 'invalid_parameters' });
    const updated = await updateLiveStream({ liveStreamId: stream.id, body: { reconnect_window: 5, passthrough: 'p' } });
    expect(updated).toMatchObject({ latencyMode: 'standard', reconnectWindow: 5, passthrough: 'p' });
    expect(await eventsOf(stream.id)).toEqual(['video.live_stream.created', 'video.live_stream.updated']);
  });

  test('delete: the broadcast is stopped while the row still exists; the event goes out; recordings stay and stay listed', async () => {
    const stream = await createLiveStream({ body: { playback_policies: ['public'] } });
    const added = await createLivePlaybackId({ liveStreamId: stream.id, policy: 'signed' });
    await deleteLivePlaybackId({ liveStreamId: stream.id, playbackId: added.id });
    const recording = await getDb().asset.create({ data: { id: 'R'.repeat(44), status: 'ready', encodingTier: 'smart', ingestType: 'live_rtmp', inputsJson: '[]', liveStreamId: stream.id } });
    expect((await listAssets({ liveStreamId: stream.id })).assets.map((asset) => asset.id)).toEqual([recording.id]);

    await deleteLiveStream({ liveStreamId: stream.id });
    expect(stops).toEqual([{ liveStreamId: stream.id, reason: 'delete', row: { status: 'idle', streamKey: stream.streamKey } }]);
    expect(await getDb().liveStream.findUnique({ where: { id: stream.id } })).toBeNull();
    expect(await findLivePlaybackId(stream.playbackIds[0]!.id)).toBeNull();
    expect(await eventsOf(stream.id)).toEqual(['video.live_stream.created', 'video.live_stream.updated', 'video.live_stream.updated', 'video.live_stream.deleted']);
    expect((await listAssets({ liveStreamId: stream.id })).assets.map((asset) => asset.id)).toEqual([recording.id]);
    await expect(deleteLiveStream({ liveStreamId: stream.id })).rejects.toMatchObject({ type: 'not_found' });
  });

  test('list: newest first, page-number paging, filters by status and stream key', async () => {
    const disabled = await createLiveStream({ body: {} });
    await disableLiveStream({ liveStreamId: disabled.id });
    const all = await listLiveStreams({ limit: 100 });
    expect(all[0]!.id).toBe(disabled.id);
    expect(all.map((stream) => stream.createdAt.getTime())).toEqual([...all.map((stream) => stream.createdAt.getTime())].sort((a, b) => b - a));
    expect((await listLiveStreams({ status: 'disabled' })).map((stream) => stream.id)).toEqual([disabled.id]);
    expect((await listLiveStreams({ streamKey: disabled.streamKey })).map((stream) => stream.id)).toEqual([disabled.id]);
    expect(await listLiveStreams({ limit: 100, page: 2 })).toEqual([]);
    expect((await listLiveStreams({ limit: 1, page: 2 }))[0]!.id).toBe(all[1]!.id);
  });
});
