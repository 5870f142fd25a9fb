import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { Api, type Json } from '../support/api';
import { getFreePort, type AccessToken, type KeyframeServer } from '../support/keyframe-server';
import { CLI_ENTRY, REPO_ROOT, TSX_BIN } from '../../harness/paths';
import { disposeKeyframe, expect, restartKeyframe, startKeyframe, test } from '../support/test';
import { WebhookReceiver, type ReceivedWebhook } from '../../harness/webhook-receiver';

// Signed, durable webhooks against a real server and real receivers on 127.0.0.1: every request
// is verified with @mux/mux-node's `webhooks.unwrap`, as an integrator's endpoint would.

const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MUX_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const ENVELOPE_KEYS = [
  'accessor', 'accessor_source', 'attempts', 'created_at', 'data', 'environment', 'id', 'object', 'request_id', 'type',
];

// Fast retries (0.5 s, 1 s, 2 s …) so retry tests take seconds; a long request timeout so a
// receiver that never answers stays "in flight" for the whole slow-receiver test.
const SERVER_ENV = { WEBHOOK_RETRY_BASE_SECONDS: '0.5', WEBHOOK_TIMEOUT_SECONDS: '30' };

type Endpoint = { id: string; url: string; secret: string };

const createEndpoint = async (server: KeyframeServer, receiver: WebhookReceiver, url = receiver.url): Promise<Endpoint> => {
  const endpoint = (await server.cli(['webhooks', 'create', '--url', url])) as Endpoint;
  expect(endpoint).toEqual({ id: expect.stringMatching(/^[0-9A-Za-z]{20,64}$/), url, secret: expect.any(String) });
  expect(endpoint.secret.length).toBeGreaterThanOrEqual(32);
  receiver.secret = endpoint.secret;
  return endpoint;
};

/** The Mux envelope (mux-api.md §5.1), delivered as signed JSON. */
const expectMuxDelivery = (
  entry: ReceivedWebhook,
  expected: { type: string; objectType: 'asset' | 'upload'; objectId: string; attempts?: number },
) => {
  const context = `${expected.type} delivery: ${entry.rawBody.slice(0, 2_000)}`;
  expect(entry.verifyError, context).toBeUndefined();
  expect(entry.method).toBe('POST');
  expect(entry.headers['content-type']).toBe('application/json');
  expect(entry.headers['user-agent']).toMatch(/^Keyframe-Webhooks\/\d/);
  expect(entry.headers['mux-signature']).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
  const event = entry.event;
  expect(Object.keys(event).sort(), context).toEqual(ENVELOPE_KEYS);
  expect(event, context).toMatchObject({
    type: expected.type,
    object: { type: expected.objectType, id: expected.objectId },
    environment: { id: 'default', name: 'Keyframe' },
    accessor: null,
    accessor_source: null,
    request_id: null,
  });
  expect(event.id, context).toMatch(UUID);
  expect(event.created_at, context).toMatch(MUX_TIMESTAMP);
  expect(Math.abs(Date.parse(event.created_at) - Date.now()), 'event created_at is recent').toBeLessThan(5 * 60_000);
  expect(event.data.id, context).toBe(expected.objectId);
  expect(Number.isInteger(event.data.created_at), `integer data.created_at: ${context}`).toBe(true);
  expect(event.attempts, context).toHaveLength(expected.attempts ?? 0);
};

const expectAllVerified = (...receivers: WebhookReceiver[]) => {
  for (const receiver of receivers) {
    expect(
      receiver.received.filter((entry) => entry.verifyError).map((entry) => `${entry.verifyError}: ${entry.rawBody.slice(0, 300)}`),
      'every request passed mux.webhooks.unwrap',
    ).toEqual([]);
  }
};

/** The API's asset JSON, which webhook `data` must equal apart from the integer created_at. */
const asApiJson = (data: Json) => ({ ...data, created_at: String(data.created_at) });

test.describe('webhooks on one shared server', () => {
  let server: KeyframeServer | undefined;
  let api: Api;
  let token: AccessToken;
  let receivers: WebhookReceiver[] = [];
  let endpointIds: string[] = [];

  const newReceiver = async () => {
    const receiver = await WebhookReceiver.start();
    receivers.push(receiver);
    return receiver;
  };
  const subscribe = async (receiver: WebhookReceiver) => {
    const endpoint = await createEndpoint(requireServer(), receiver);
    endpointIds.push(endpoint.id);
    return endpoint;
  };
  const requireServer = () => {
    if (!server) throw new Error('server did not start');
    return server;
  };

  test.beforeAll(async () => {
    server = await startKeyframe({ label: 'webhooks', env: SERVER_ENV });
    token = await server.createToken();
    api = new Api(server.baseUrl, token);
  });

  test.afterEach(async () => {
    // Endpoints left behind would keep retrying into the next test's timing.
    for (const id of endpointIds) await server?.cli(['webhooks', 'delete', id]).catch(() => undefined);
    await Promise.all(receivers.map((receiver) => receiver.close()));
    endpointIds = [];
    receivers = [];
  });

  test.afterAll(async () => {
    await disposeKeyframe(server);
  });

  test('a URL asset reports created, ready, updated and deleted; a broken input reports errored', async ({ media, fixtures }) => {
    test.setTimeout(90_000);
    const receiver = await newReceiver();
    await subscribe(receiver);

    const created = await api.createAsset({
      inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }],
      playback_policies: ['public'],
      passthrough: 'webhook-e2e',
    });
    const createdEvent = await receiver.waitForEvent('video.asset.created', created.id);
    const readyEvent = await receiver.waitForEvent('video.asset.ready', created.id, { timeoutMs: 45_000 });
    expectMuxDelivery(createdEvent, { type: 'video.asset.created', objectType: 'asset', objectId: created.id });
    expectMuxDelivery(readyEvent, { type: 'video.asset.ready', objectType: 'asset', objectId: created.id });
    expect(readyEvent.index).toBeGreaterThan(createdEvent.index);
    expect(createdEvent.event.id).not.toBe(readyEvent.event.id);
    expect(asApiJson(createdEvent.event.data)).toEqual(created);
    expect(createdEvent.event.data).toMatchObject({ status: 'preparing', passthrough: 'webhook-e2e' });
    const afterReady = await api.get(`/video/v1/assets/${created.id}`);
    expect(asApiJson(readyEvent.event.data)).toEqual(afterReady.json.data);
    expect(readyEvent.event.data).toMatchObject({ status: 'ready', duration: expect.any(Number), tracks: expect.any(Array) });

    const patched = await api.patch(`/video/v1/assets/${created.id}`, { passthrough: 'changed' });
    expect(patched.status, patched.text).toBe(200);
    const updatedEvent = await receiver.waitForEvent('video.asset.updated', created.id);
    expectMuxDelivery(updatedEvent, { type: 'video.asset.updated', objectType: 'asset', objectId: created.id });
    expect(asApiJson(updatedEvent.event.data)).toEqual(patched.json.data);

    // A new playback ID changes the asset's playback_ids: also video.asset.updated.
    const playbackId = await api.post(`/video/v1/assets/${created.id}/playback-ids`, { policy: 'signed' });
    expect(playbackId.status, playbackId.text).toBe(201);
    const withPlaybackId = await receiver.waitFor(
      () => receiver.accepted(created.id).find((entry) => entry.event.type === 'video.asset.updated' && entry.event.data.playback_ids?.length === 2),
      'video.asset.updated with the new playback ID',
    );
    expectMuxDelivery(withPlaybackId, { type: 'video.asset.updated', objectType: 'asset', objectId: created.id });

    const deleted = await api.delete(`/video/v1/assets/${created.id}`);
    expect(deleted.status).toBe(204);
    const deletedEvent = await receiver.waitForEvent('video.asset.deleted', created.id);
    expectMuxDelivery(deletedEvent, { type: 'video.asset.deleted', objectType: 'asset', objectId: created.id });
    expect(deletedEvent.event.data).toMatchObject({ status: 'ready', passthrough: 'changed' });

    const broken = await api.createAsset({ inputs: [{ url: media.url('/missing') }] });
    const erroredEvent = await receiver.waitForEvent('video.asset.errored', broken.id, { timeoutMs: 45_000 });
    expectMuxDelivery(erroredEvent, { type: 'video.asset.errored', objectType: 'asset', objectId: broken.id });
    expect(erroredEvent.event.data).toMatchObject({ status: 'errored', errors: { type: 'download_failed', messages: [expect.any(String)] } });
    expect(receiver.about(broken.id).map((entry) => entry.event.type)).toEqual(['video.asset.created', 'video.asset.errored']);

    // Each event exactly once to an endpoint that answers 200.
    expect(receiver.about(created.id).map((entry) => entry.event.type)).toEqual([
      'video.asset.created',
      'video.asset.ready',
      'video.asset.updated',
      'video.asset.updated',
      'video.asset.deleted',
    ]);
    expectAllVerified(receiver);
  });

  test('a direct upload reports upload.created, upload.asset_created, asset.created and asset.ready; cancel reports upload.cancelled', async ({
    fixtures,
  }) => {
    test.setTimeout(90_000);
    const receiver = await newReceiver();
    await subscribe(receiver);

    const createUpload = async () => {
      const response = await api.post('/video/v1/uploads', { new_asset_settings: { playback_policies: ['public'] }, cors_origin: '*' });
      expect(response.status, response.text).toBe(201);
      return response.json.data;
    };
    const upload = await createUpload();
    const uploadCreated = await receiver.waitForEvent('video.upload.created', upload.id);
    expectMuxDelivery(uploadCreated, { type: 'video.upload.created', objectType: 'upload', objectId: upload.id });
    expect(uploadCreated.event.data).toMatchObject({ id: upload.id, status: 'waiting' });

    const put = await fetch(upload.url, { method: 'PUT', body: await readFile(fixtures.path('videoSmall')) });
    expect([200, 201], `PUT upload: ${put.status} ${await put.text()}`).toContain(put.status);

    const assetCreatedForUpload = await receiver.waitForEvent('video.upload.asset_created', upload.id);
    expectMuxDelivery(assetCreatedForUpload, { type: 'video.upload.asset_created', objectType: 'upload', objectId: upload.id });
    const assetId: string = assetCreatedForUpload.event.data.asset_id;
    expect(assetCreatedForUpload.event.data).toMatchObject({ status: 'asset_created', asset_id: expect.any(String) });

    const assetCreated = await receiver.waitForEvent('video.asset.created', assetId);
    const assetReady = await receiver.waitForEvent('video.asset.ready', assetId, { timeoutMs: 45_000 });
    expectMuxDelivery(assetCreated, { type: 'video.asset.created', objectType: 'asset', objectId: assetId });
    expectMuxDelivery(assetReady, { type: 'video.asset.ready', objectType: 'asset', objectId: assetId });
    expect(assetCreated.event.data).toMatchObject({ upload_id: upload.id, status: 'preparing' });
    expect(assetReady.event.data).toMatchObject({ upload_id: upload.id, status: 'ready', playback_ids: [{ policy: 'public' }] });

    const other = await createUpload();
    const cancel = await api.request('PUT', `/video/v1/uploads/${other.id}/cancel`);
    expect(cancel.status, cancel.text).toBe(200);
    const cancelled = await receiver.waitForEvent('video.upload.cancelled', other.id);
    expectMuxDelivery(cancelled, { type: 'video.upload.cancelled', objectType: 'upload', objectId: other.id });
    expect(cancelled.event.data).toMatchObject({ id: other.id, status: 'cancelled' });
    expectAllVerified(receiver);
  });

  test('a receiver answering 500 twice gets the event on the third attempt, which lists the two failures', async ({ media, fixtures }) => {
    const receiver = await newReceiver();
    const tries = new Map<string, number>();
    receiver.reply = ({ event }) => {
      const count = (tries.get(event.id) ?? 0) + 1;
      tries.set(event.id, count);
      return count <= 2 ? 500 : 200;
    };
    const endpoint = await subscribe(receiver);

    const asset = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }] });
    await receiver.waitForEvent('video.asset.created', asset.id, { timeoutMs: 20_000 });
    const attempts = receiver.about(asset.id).filter((entry) => entry.event.type === 'video.asset.created');
    expect(attempts.map((entry) => entry.reply)).toEqual([500, 500, 200]);
    attempts.forEach((entry, index) =>
      expectMuxDelivery(entry, { type: 'video.asset.created', objectType: 'asset', objectId: asset.id, attempts: index }),
    );
    // Same event every time; a fresh signature timestamp per attempt.
    expect(new Set(attempts.map((entry) => entry.event.id)).size).toBe(1);
    expect(new Set(attempts.map((entry) => entry.rawBody)).size).toBe(3);

    // Backoff: base 0.5 s, then 1 s (the dispatcher polls once a second, so allow some lateness).
    const [first, second, third] = attempts as [ReceivedWebhook, ReceivedWebhook, ReceivedWebhook];
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(400);
    expect(third.receivedAt - second.receivedAt).toBeGreaterThanOrEqual(900);
    expect(third.receivedAt - first.receivedAt).toBeLessThan(8_000);

    const listed = third.event.attempts as Json[];
    expect(listed).toEqual([
      expect.objectContaining({ response_status_code: 500, response_body: 'refused with 500' }),
      expect.objectContaining({ response_status_code: 500, response_body: 'refused with 500' }),
    ]);
    for (const attempt of listed) {
      expect(attempt).toEqual({
        id: expect.stringMatching(UUID),
        address: endpoint.url,
        created_at: expect.stringMatching(MUX_TIMESTAMP),
        max_attempts: expect.any(Number),
        response_body: 'refused with 500',
        response_headers: expect.objectContaining({ 'x-receiver': 'keyframe-e2e' }),
        response_status_code: 500,
        webhook_id: expect.any(Number),
      });
      expect(Number.isSafeInteger(attempt.webhook_id)).toBe(true);
      expect(attempt.max_attempts).toBeGreaterThan(3);
    }
    expect(listed[0].id).not.toBe(listed[1].id);
    expect(listed[0].webhook_id).toBe(listed[1].webhook_id);
    expect(Date.parse(listed[0].created_at)).toBeLessThan(Date.parse(listed[1].created_at));
    expect(second.event.attempts).toEqual([listed[0]]);
    expectAllVerified(receiver);
  });

  test('a receiver that never answers delays neither ingest nor other endpoints', async ({ media, fixtures }) => {
    test.setTimeout(60_000);
    const slow = await newReceiver();
    slow.reply = () => 'hang';
    const fast = await newReceiver();
    await subscribe(slow);
    await subscribe(fast);

    const startedAt = Date.now();
    const asset = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }] });
    const ready = await fast.waitForEvent('video.asset.ready', asset.id, { timeoutMs: 25_000 });
    // Requests to the slow receiver are still open (its timeout is 30 s) when the asset is ready.
    expect(ready.receivedAt - startedAt).toBeLessThan(25_000);
    expect(slow.about(asset.id).map((entry) => entry.reply)).toContain('hang');
    expect(slow.accepted(asset.id)).toEqual([]);
    expectMuxDelivery(ready, { type: 'video.asset.ready', objectType: 'asset', objectId: asset.id });
    expectAllVerified(slow, fast);
  });

  test('CLI: webhooks create/list/delete with --json; a deleted endpoint gets nothing more', async ({ media, fixtures }) => {
    const keyframe = requireServer();
    const keep = await newReceiver();
    const doomed = await newReceiver();
    doomed.reply = () => 500; // so it has deliveries waiting for a retry when it is deleted
    const keepEndpoint = await subscribe(keep);
    const doomedEndpoint = await subscribe(doomed);

    const listed = (await keyframe.cli(['webhooks', 'list'])) as Json[];
    for (const endpoint of [keepEndpoint, doomedEndpoint]) {
      expect(listed).toContainEqual({
        id: endpoint.id,
        url: endpoint.url,
        secret: endpoint.secret,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        deliveries: { pending: expect.any(Number), delivered: expect.any(Number), failed: expect.any(Number) },
      });
    }

    const asset = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }] });
    await keep.waitForEvent('video.asset.created', asset.id);
    await doomed.waitFor(() => (doomed.about(asset.id).length >= 2 ? true : undefined), 'two failed attempts at the doomed endpoint');

    expect(await keyframe.cli(['webhooks', 'delete', doomedEndpoint.id])).toEqual({ id: doomedEndpoint.id, deleted: true });
    endpointIds = endpointIds.filter((id) => id !== doomedEndpoint.id);
    const remaining = (await keyframe.cli(['webhooks', 'list'])) as Json[];
    expect(remaining.map((endpoint) => endpoint.id)).toContain(keepEndpoint.id);
    expect(remaining.map((endpoint) => endpoint.id)).not.toContain(doomedEndpoint.id);
    await expect(keyframe.cli(['webhooks', 'delete', doomedEndpoint.id])).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining('no webhook endpoint with id'),
    });

    // A request that was already on its way may still land; after that, silence.
    await sleep(500);
    const countAfterDelete = doomed.received.length;
    const patched = await api.patch(`/video/v1/assets/${asset.id}`, { passthrough: 'after-delete' });
    expect(patched.status).toBe(200);
    await keep.waitForEvent('video.asset.updated', asset.id);
    await keep.waitForEvent('video.asset.ready', asset.id, { timeoutMs: 45_000 });
    await sleep(2_500); // several retry periods at a 0.5 s base
    expect(doomed.received.length, 'requests to the deleted endpoint').toBe(countAfterDelete);

    // Invalid URLs are refused with a clear message and a usage exit code.
    for (const [url, reason] of [
      ['ftp://example.com/hook', /http:\/\/ or https:\/\//],
      ['not a url', /not a valid URL/],
    ] as const) {
      const failure = await execFileAsync(TSX_BIN, [CLI_ENTRY, 'webhooks', 'create', '--url', url, '--json'], {
        cwd: REPO_ROOT,
        env: keyframe.env,
      }).then(
        () => undefined,
        (error: { code: number; stdout: string }) => error,
      );
      expect(failure?.code, `exit code for --url ${url}`).toBe(2);
      expect(JSON.parse(failure?.stdout ?? '{}')).toEqual({ error: { message: expect.stringMatching(reason) } });
    }
    expectAllVerified(keep, doomed);
  });
});

test.describe('webhooks across restarts', () => {
  let servers: Array<KeyframeServer | undefined> = [];
  let receivers: WebhookReceiver[] = [];

  test.beforeEach(() => {
    test.setTimeout(120_000);
  });

  test.afterEach(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await disposeKeyframe(...servers);
    servers = [];
    receivers = [];
  });

  test('events recorded while the receiver is down arrive after SIGTERM and a restart', async ({ media, fixtures }) => {
    const first = await startKeyframe({ label: 'webhooks-durable', env: SERVER_ENV });
    servers.push(first);
    const token = await first.createToken();
    const port = await getFreePort();
    const url = `http://127.0.0.1:${port}/hooks/mux`;
    const endpoint = (await first.cli(['webhooks', 'create', '--url', url])) as Endpoint;

    // Nothing listens on `port` yet: every attempt is a refused connection.
    const asset = await new Api(first.baseUrl, token).createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }] });
    const ready = await new Api(first.baseUrl, token).waitForStatus(asset.id, ['ready', 'errored']);
    expect(ready.status).toBe('ready');
    await sleep(1_500); // at least one failed attempt for video.asset.ready too
    const listed = (await first.cli(['webhooks', 'list'])) as Json[];
    expect(listed.find((entry) => entry.id === endpoint.id)?.deliveries).toEqual({ pending: 2, delivered: 0, failed: 0 });

    const exit = await first.stop({ timeoutMs: 15_000 });
    expect(exit.code).toBe(0);

    const receiver = await WebhookReceiver.start(port);
    receivers.push(receiver);
    receiver.secret = endpoint.secret;
    const second = await restartKeyframe(first, { label: 'webhooks-durable-restarted' });
    servers.push(second);

    const created = await receiver.waitForEvent('video.asset.created', asset.id);
    const readyEvent = await receiver.waitForEvent('video.asset.ready', asset.id);
    for (const [entry, type] of [
      [created, 'video.asset.created'],
      [readyEvent, 'video.asset.ready'],
    ] as const) {
      expect(entry.verifyError).toBeUndefined();
      expect(entry.event.type).toBe(type);
      expect(entry.event.attempts.length, `${type} lists the refused attempts`).toBeGreaterThanOrEqual(1);
      for (const attempt of entry.event.attempts) {
        expect(attempt).toMatchObject({ address: url, response_status_code: null, response_body: null, response_headers: {} });
      }
    }
    expect(receiver.received).toHaveLength(2);
    expectAllVerified(receiver);
  });

  test('SIGTERM aborts a request in flight without counting it; the restart sends it again', async ({ media, fixtures }) => {
    const first = await startKeyframe({ label: 'webhooks-inflight', env: SERVER_ENV });
    servers.push(first);
    const token = await first.createToken();
    const receiver = await WebhookReceiver.start();
    receivers.push(receiver);
    receiver.reply = () => 'hang';
    await createEndpoint(first, receiver);

    const api = new Api(first.baseUrl, token);
    const asset = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }] });
    // Ingest finished (so the job worker has nothing to wind down) and `created` is hanging;
    // `ready` waits behind it (one request at a time per endpoint).
    expect((await api.waitForStatus(asset.id, ['ready', 'errored'])).status).toBe('ready');
    await receiver.waitForEvent('video.asset.created', asset.id, { acceptedOnly: false });

    // The requests hang (timeout 30 s); stopping must not wait for them.
    const signalledAt = Date.now();
    const exit = await first.stop({ timeoutMs: 15_000 });
    expect(exit.code).toBe(0);
    expect(exit.at - signalledAt, 'shutdown time with a request in flight').toBeLessThan(6_000);

    receiver.reply = () => 200;
    const second = await restartKeyframe(first, { label: 'webhooks-inflight-restarted' });
    servers.push(second);
    const created = await receiver.waitForEvent('video.asset.created', asset.id);
    expectMuxDelivery(created, { type: 'video.asset.created', objectType: 'asset', objectId: asset.id, attempts: 0 });
    const ready = await receiver.waitForEvent('video.asset.ready', asset.id);
    expectMuxDelivery(ready, { type: 'video.asset.ready', objectType: 'asset', objectId: asset.id, attempts: 0 });
    // The aborted request's event was delivered after the restart, once, before the one behind it.
    const hung = receiver.about(asset.id).filter((entry) => entry.reply === 'hang');
    expect(hung.map((entry) => entry.event.id)).toEqual([created.event.id]);
    expect(created.receivedAt).toBeLessThan(ready.receivedAt);
    expect(receiver.received).toHaveLength(3);
    expectAllVerified(receiver);
  });
});
