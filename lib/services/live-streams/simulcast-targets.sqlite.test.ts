import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getDb } from '../../db/client';
import { setUpTestInstallation, type TestInstallation } from '../../db/test-support/test-installation';
import { registerBroadcastStopper } from '../live/broadcast-control';
import { markSimulcastTargetStatus, simulcastTargetsOf } from '../live/simulcast-state';
import { createWebhookEndpoint } from '../webhooks/create-webhook-endpoint';
import { createLiveStream } from './create-live-stream';
import { deleteLiveStream } from './delete-live-stream';
import { getLiveStream } from './get-live-stream';
import { createSimulcastTarget, deleteSimulcastTarget, getSimulcastTarget } from './simulcast-targets';

// Simulcast targets on a real SQLite database: the API's create/get/delete with the idle rule,
// and the restreamer's side (simulcast-state.ts), each change with its webhook. Destinations are
// public IP literals, so no test waits on DNS; private ones are refused (the policy's default).

// Public addresses (no DNS lookup for a literal).
const YOUTUBE_LIKE = 'rtmp://93.184.216.34/live2';
const TWITCH_LIKE = 'rtmps://93.184.216.35:443/app';
const SRT_TARGET = 'srt://93.184.216.36:9000?streamid=abc&passphrase=0123456789';
const UNKNOWN_ID = 'A'.repeat(20) + 'b'.repeat(24);

let installation: TestInstallation | undefined;

beforeAll(async () => {
  process.env.ALLOW_PRIVATE_INPUT_URLS = 'false';
  installation = await setUpTestInstallation('simulcast-targets');
  // Events are recorded only when an endpoint would receive them.
  await createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks' });
  registerBroadcastStopper(async () => undefined);
});

afterAll(async () => {
  registerBroadcastStopper(null);
  await installation?.tearDown();
});

type RecordedEvent = { type: string; objectType: string; data: Record<string, unknown> };

const eventsAbout = async (objectId: string): Promise<RecordedEvent[]> => {
  const rows = await getDb().$queryRawUnsafe<Array<{ type: string; objectType: string; dataJson: string }>>(
    'SELECT type, "objectType", "dataJson" FROM "WebhookEvent" WHERE "objectId" = ? ORDER BY rowid',
    objectId,
  );
  return rows.map((row) => ({ type: row.type, objectType: row.objectType, data: JSON.parse(row.dataJson) as Record<string, unknown> }));
};

const typesAbout = async (objectId: string): Promise<string[]> => (await eventsAbout(objectId)).map((event) => event.type);

const setStream = (liveStreamId: string, data: { status?: string; connectedAt?: Date | null }) => getDb().liveStream.update({ where: { id: liveStreamId }, data });

const statusOf = async (targetId: string) => {
  const target = await getDb().simulcastTarget.findUniqueOrThrow({ where: { id: targetId } });
  return { status: target.status, errorSeverity: target.errorSeverity };
};

describe('simulcast targets API on SQLite', () => {
  test('create: idle, on the stream, with video.live_stream.simulcast_target.created naming the stream; get finds it', async () => {
    const stream = await createLiveStream({ body: {} });
    const target = await createSimulcastTarget({ liveStreamId: stream.id, body: { url: YOUTUBE_LIKE, stream_key: 'yt-key', passthrough: 'YouTube' } });
    expect(target).toMatchObject({ liveStreamId: stream.id, url: YOUTUBE_LIKE, streamKey: 'yt-key', passthrough: 'YouTube', status: 'idle', errorSeverity: null });
    expect(await getSimulcastTarget({ liveStreamId: stream.id, simulcastTargetId: target.id })).toEqual(target);
    expect((await getLiveStream({ liveStreamId: stream.id })).simulcastTargets).toEqual([target]);
    expect(await eventsAbout(target.id)).toEqual([
      {
        type: 'video.live_stream.simulcast_target.created',
        objectType: 'simulcast_target',
        data: { id: target.id, status: 'idle', url: YOUTUBE_LIKE, stream_key: 'yt-key', passthrough: 'YouTube', live_stream_id: stream.id },
      },
    ]);
    // The stream's own events are its own.
    expect(await typesAbout(stream.id)).toEqual(['video.live_stream.created']);
  });

  test('an unknown stream or target is a 404; a target of another stream is not found under this one', async () => {
    const stream = await createLiveStream({ body: {} });
    const other = await createLiveStream({ body: {} });
    const target = await createSimulcastTarget({ liveStreamId: other.id, body: { url: YOUTUBE_LIKE } });
    await expect(createSimulcastTarget({ liveStreamId: UNKNOWN_ID, body: { url: YOUTUBE_LIKE } })).rejects.toMatchObject({ type: 'not_found', messages: ['Live stream not found'] });
    await expect(getSimulcastTarget({ liveStreamId: UNKNOWN_ID, simulcastTargetId: target.id })).rejects.toMatchObject({ type: 'not_found', messages: ['Live stream not found'] });
    await expect(getSimulcastTarget({ liveStreamId: stream.id, simulcastTargetId: target.id })).rejects.toMatchObject({ type: 'not_found', messages: ['Simulcast target not found'] });
    await expect(deleteSimulcastTarget({ liveStreamId: stream.id, simulcastTargetId: target.id })).rejects.toMatchObject({ type: 'not_found' });
    expect(await simulcastTargetsOf(other.id)).toHaveLength(1);
  });

  test('a private, loopback or local destination is refused (400) unless ALLOW_PRIVATE_INPUT_URLS', async () => {
    const stream = await createLiveStream({ body: {} });
    for (const url of ['rtmp://127.0.0.1:1935/app', 'rtmp://10.0.0.7/app', 'srt://[::1]:9000', 'rtmp://localhost/app']) {
      await expect(createSimulcastTarget({ liveStreamId: stream.id, body: { url } }), url).rejects.toMatchObject({
        type: 'invalid_parameters',
        messages: [expect.stringMatching(/^url: .*(private or loopback address|local or internal host name)/)],
      });
    }
    await expect(createLiveStream({ body: { simulcast_targets: [{ url: YOUTUBE_LIKE }, { url: 'rtmp://192.168.1.2/app' }] } })).rejects.toMatchObject({
      type: 'invalid_parameters',
      messages: [expect.stringMatching(/^simulcast_targets\[1\]\.url: .*private or loopback address/)],
    });
    expect(await simulcastTargetsOf(stream.id)).toEqual([]);
  });

  test('create and delete only while idle: not while active, disabled or a publisher is connecting', async () => {
    const stream = await createLiveStream({ body: {} });
    const target = await createSimulcastTarget({ liveStreamId: stream.id, body: { url: YOUTUBE_LIKE } });
    const refusedWhile = async (state: { status?: string; connectedAt?: Date | null }, reason: RegExp) => {
      await setStream(stream.id, state);
      const refusal = { type: 'invalid_parameters', messages: [expect.stringMatching(reason)] };
      await expect(createSimulcastTarget({ liveStreamId: stream.id, body: { url: TWITCH_LIKE } })).rejects.toMatchObject(refusal);
      await expect(deleteSimulcastTarget({ liveStreamId: stream.id, simulcastTargetId: target.id })).rejects.toMatchObject(refusal);
    };
    await refusedWhile({ status: 'active', connectedAt: new Date() }, /^Simulcast targets can only be (created|deleted) while the live stream is idle; it is active$/);
    await refusedWhile({ status: 'disabled', connectedAt: null }, /while the live stream is idle; it is disabled$/);
    await refusedWhile({ status: 'idle', connectedAt: new Date() }, /while the live stream is idle; a publisher is connecting$/);
    expect((await simulcastTargetsOf(stream.id)).map((listed) => listed.id)).toEqual([target.id]);

    await setStream(stream.id, { status: 'idle', connectedAt: null });
    await deleteSimulcastTarget({ liveStreamId: stream.id, simulcastTargetId: target.id });
    expect(await simulcastTargetsOf(stream.id)).toEqual([]);
    await expect(deleteSimulcastTarget({ liveStreamId: stream.id, simulcastTargetId: target.id })).rejects.toMatchObject({ type: 'not_found' });
    const events = await eventsAbout(target.id);
    expect(events.map((event) => event.type)).toEqual(['video.live_stream.simulcast_target.created', 'video.live_stream.simulcast_target.deleted']);
    expect(events[1]!.data).toEqual({ id: target.id, status: 'idle', url: YOUTUBE_LIKE, live_stream_id: stream.id });
  });

  test('simulcast_targets in the create body: created in the order sent, in the stream’s created event, each with its own event', async () => {
    const stream = await createLiveStream({
      body: { simulcast_targets: [{ url: TWITCH_LIKE, stream_key: 'live_1' }, { url: SRT_TARGET }, { url: YOUTUBE_LIKE, stream_key: 'yt', passthrough: 'third' }] },
    });
    expect(stream.simulcastTargets.map((target) => target.url)).toEqual([TWITCH_LIKE, SRT_TARGET, YOUTUBE_LIKE]);
    expect(await simulcastTargetsOf(stream.id)).toEqual([
      { id: stream.simulcastTargets[0]!.id, url: TWITCH_LIKE, streamKey: 'live_1' },
      { id: stream.simulcastTargets[1]!.id, url: SRT_TARGET, streamKey: null },
      { id: stream.simulcastTargets[2]!.id, url: YOUTUBE_LIKE, streamKey: 'yt' },
    ]);
    const [created] = await eventsAbout(stream.id);
    expect((created!.data.simulcast_targets as Array<{ id: string }>).map((target) => target.id)).toEqual(stream.simulcastTargets.map((target) => target.id));
    for (const target of stream.simulcastTargets) expect(await typesAbout(target.id)).toEqual(['video.live_stream.simulcast_target.created']);
  });

  test('deleting the live stream deletes its targets', async () => {
    const stream = await createLiveStream({ body: { simulcast_targets: [{ url: YOUTUBE_LIKE }, { url: TWITCH_LIKE }] } });
    await deleteLiveStream({ liveStreamId: stream.id });
    expect(await getDb().simulcastTarget.count({ where: { liveStreamId: stream.id } })).toBe(0);
    expect(await simulcastTargetsOf(stream.id)).toEqual([]);
  });
});

describe('simulcast target status (the restreamer’s side)', () => {
  test('each change is recorded once with its event; errored carries a severity, which goes when it leaves errored', async () => {
    const stream = await createLiveStream({ body: {} });
    const target = await createSimulcastTarget({ liveStreamId: stream.id, body: { url: YOUTUBE_LIKE, stream_key: 'k' } });

    await markSimulcastTargetStatus(target.id, 'starting');
    await markSimulcastTargetStatus(target.id, 'starting');
    expect(await statusOf(target.id)).toEqual({ status: 'starting', errorSeverity: null });
    await markSimulcastTargetStatus(target.id, 'broadcasting');
    await markSimulcastTargetStatus(target.id, 'errored');
    expect(await statusOf(target.id)).toEqual({ status: 'errored', errorSeverity: 'normal' });
    await markSimulcastTargetStatus(target.id, 'errored', 'normal');
    await markSimulcastTargetStatus(target.id, 'errored', 'fatal');
    expect(await statusOf(target.id)).toEqual({ status: 'errored', errorSeverity: 'fatal' });
    await markSimulcastTargetStatus(target.id, 'starting');
    expect(await statusOf(target.id)).toEqual({ status: 'starting', errorSeverity: null });
    await markSimulcastTargetStatus(target.id, 'idle', 'fatal');
    expect(await statusOf(target.id)).toEqual({ status: 'idle', errorSeverity: null });

    const events = await eventsAbout(target.id);
    expect(events.map((event) => event.type)).toEqual([
      'video.live_stream.simulcast_target.created',
      'video.live_stream.simulcast_target.starting',
      'video.live_stream.simulcast_target.broadcasting',
      'video.live_stream.simulcast_target.errored',
      'video.live_stream.simulcast_target.errored',
      'video.live_stream.simulcast_target.starting',
      'video.live_stream.simulcast_target.idle',
    ]);
    const base = { id: target.id, url: YOUTUBE_LIKE, stream_key: 'k', live_stream_id: stream.id };
    expect(events.map((event) => event.data)).toEqual([
      { ...base, status: 'idle' },
      { ...base, status: 'starting' },
      { ...base, status: 'broadcasting' },
      { ...base, status: 'errored', error_severity: 'normal' },
      { ...base, status: 'errored', error_severity: 'fatal' },
      { ...base, status: 'starting' },
      { ...base, status: 'idle' },
    ]);
    // The API shows the status as it is now.
    expect((await getLiveStream({ liveStreamId: stream.id })).simulcastTargets.map((listed) => listed.status)).toEqual(['idle']);
  });

  test('concurrent reports of one change record it once', async () => {
    const stream = await createLiveStream({ body: {} });
    const target = await createSimulcastTarget({ liveStreamId: stream.id, body: { url: YOUTUBE_LIKE } });
    await Promise.all([markSimulcastTargetStatus(target.id, 'broadcasting'), markSimulcastTargetStatus(target.id, 'broadcasting')]);
    expect(await typesAbout(target.id)).toEqual(['video.live_stream.simulcast_target.created', 'video.live_stream.simulcast_target.broadcasting']);
  });

  test('a target deleted meanwhile is left deleted, without an event', async () => {
    const stream = await createLiveStream({ body: {} });
    const target = await createSimulcastTarget({ liveStreamId: stream.id, body: { url: YOUTUBE_LIKE } });
    await deleteSimulcastTarget({ liveStreamId: stream.id, simulcastTargetId: target.id });
    await markSimulcastTargetStatus(target.id, 'starting');
    expect(await getDb().simulcastTarget.findUnique({ where: { id: target.id } })).toBeNull();
    expect(await typesAbout(target.id)).toEqual(['video.live_stream.simulcast_target.created', 'video.live_stream.simulcast_target.deleted']);
  });
});
