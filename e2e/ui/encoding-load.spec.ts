import { Api, expectApiError, type ApiResponse } from '../support/api';
import { createAdmin, signIn } from '../support/dashboard';
import type { KeyframeServer } from '../support/keyframe-server';
import { expect, test } from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';

// The encoding load for operators: GET /api/encoding-load (dashboard session or access token) and
// the dashboard's status strip and panel, which follow real just-in-time encodes as they run.

test.describe.configure({ mode: 'serial' });

// One encoder, so a handful of cold segments is enough to keep it busy with a queue behind it.
const ENCODER_LIMIT = 1;

let server: KeyframeServer | undefined;
test.beforeAll(async () => {
  server = await startKeyframe({ label: 'ui-encoding-load', env: { JIT_ENCODE_CONCURRENCY: String(ENCODER_LIMIT) } });
  await createAdmin(server);
});
test.afterAll(async () => disposeKeyframe(server));

const started = (): KeyframeServer => {
  if (!server) throw new Error('server not started');
  return server;
};

const expectEncodingLoad = (response: ApiResponse) => {
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.json).toEqual({
    data: {
      at: expect.any(String),
      encoderLimit: ENCODER_LIMIT,
      running: expect.any(Number),
      queued: expect.any(Number),
      queuedByKind: { onDemand: expect.any(Number), prefetch: expect.any(Number), audio: expect.any(Number), background: expect.any(Number) },
      deadlineMisses: expect.any(Number),
      rungCosts: expect.any(Array),
    },
  });
  expect(Number.isNaN(Date.parse(response.json.data.at))).toBe(false);
};

test('GET /api/encoding-load answers 401 without credentials and 200 with an access token', async () => {
  const keyframe = started();
  const api = new Api(keyframe.baseUrl);

  const anonymous = await api.get('/api/encoding-load');
  expectApiError(anonymous, 401, 'unauthorized');
  expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
  expectApiError(await api.get('/api/encoding-load', { auth: { id: 'nope', secret: 'wrong' } }), 401, 'unauthorized');

  // Reading the load is a read: a read-only token will do.
  const readOnly = await keyframe.createToken({ readOnly: true });
  expectEncodingLoad(await api.as(readOnly).get('/api/encoding-load'));

  // A revoked token is refused at once.
  const revoked = await keyframe.createToken();
  await keyframe.revokeToken(revoked.id);
  expectApiError(await api.as(revoked).get('/api/encoding-load'), 401, 'unauthorized');
});

test('GET /api/encoding-load answers 200 to a dashboard session', async ({ page }) => {
  const keyframe = started();
  await signIn(page, keyframe);
  const response = await page.request.get(keyframe.url('/api/encoding-load'));
  expectEncodingLoad({ status: response.status(), headers: new Headers(response.headers()), json: await response.json(), text: '' });
});
