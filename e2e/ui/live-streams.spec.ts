import type Mux from '@mux/mux-node';
import { createAdmin, screenshot, signIn } from '../support/dashboard';
import type { KeyframeServer } from '../support/keyframe-server';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';

// Live streams in the dashboard: create one from the form, its key revealed and reset (checked
// against the API through @mux/mux-node), its status badge following the server, disable, enable
// and delete. Nothing is published: the server runs without an RTMP listener.

test.describe.configure({ mode: 'serial' });

let server: KeyframeServer | undefined;
let mux: Mux | undefined;
test.beforeAll(async () => {
  server = await startKeyframe({ label: 'ui-live-streams', env: { RTMP_PORT: '0' } });
  await createAdmin(server);
  mux = muxClient(server, await server.createToken());
});
test.afterAll(async () => disposeKeyframe(server));

const started = (): { keyframe: KeyframeServer; api: Mux } => {
  if (!server || !mux) throw new Error('server not started');
  return { keyframe: server, api: mux };
};

test('a live stream created in the dashboard: key reveal and reset, disable, enable, delete', async ({ page }, testInfo) => {
  const { keyframe, api } = started();
  await signIn(page, keyframe);
  await page.getByRole('link', { name: 'Live streams' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Live streams' })).toBeVisible();
  await expect(page.getByText('No live streams yet')).toBeVisible();

  // The API's validation messages are shown as they are.
  const form = page.getByRole('form', { name: 'Create a live stream' });
  await form.getByLabel('Reconnect window (s)').fill('5000');
  await form.getByRole('button', { name: 'Create live stream' }).click();
  await expect(form.getByRole('alert').filter({ hasText: 'reconnect_window' })).toBeVisible();

  const title = `Studio A ${Date.now()}`;
  await form.getByLabel('Title (optional)').fill(title);
  await form.getByLabel('Latency mode').selectOption('reduced');
  await form.getByLabel('Reconnect window (s)').fill('30');
  await form.getByLabel('Playback policy').selectOption('public');
  await expect(form.getByLabel(/Record each broadcast/)).toBeChecked();
  await form.getByLabel('Generated captions (English)').check();
  await form.getByRole('button', { name: 'Create live stream' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'created' })).toBeVisible();

  const row = page.locator('tr[data-live-stream-id]').filter({ hasText: title });
  await expect(row.locator('[data-status]')).toHaveAttribute('data-status', 'idle');
  await expect(row).toContainText('reduced');
  const liveStreamId = (await row.getAttribute('data-live-stream-id')) ?? '';
  const created = await api.video.liveStreams.retrieve(liveStreamId);
  expect(created).toMatchObject({ status: 'idle', latency_mode: 'reduced', reconnect_window: 30, meta: { title } });
  expect(created.playback_ids?.map((playbackId) => playbackId.policy)).toEqual(['public']);
  expect(created.new_asset_settings?.playback_policies).toEqual(['public']);
  expect(created.generated_subtitles).toEqual([{ name: 'English (generated)', language_code: 'en' }]);
  const playbackId = created.playback_ids?.[0]?.id ?? '';
  await expect(row).toContainText(playbackId);
  // The table never carries stream keys.
  await expect(page.locator('body')).not.toContainText(created.stream_key);
  await screenshot(page, testInfo, 'live-streams');

  await row.getByRole('link', { name: title }).click();
  await expect(page).toHaveURL(new RegExp(`/live-streams/${liveStreamId}$`));
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  const status = page.getByTestId('live-stream-status').locator('[data-status]');
  await expect(status).toHaveAttribute('data-status', 'idle');
  await expect(page.getByTestId('live-preview-placeholder')).toContainText('Waiting for a publisher');
  await expect(page.getByText('English (generated) (en)')).toBeVisible();
  await expect(page.getByText('not listening for RTMP')).toBeVisible();
  await expect(page.getByTestId('live-stream-url')).toHaveText(`${keyframe.baseUrl}/${playbackId}.m3u8`);
  const rtmpUrl = (await page.getByTestId('rtmp-url').textContent()) ?? '';
  expect(rtmpUrl).toMatch(/^rtmp:\/\/[^/]+:\d+\/app$/);
  await expect(page.getByTestId('rtmps-url'), 'no RTMPS without RTMP').toHaveCount(0);

  // Hidden until revealed, and the publish URL with it.
  const streamKey = page.getByTestId('stream-key');
  await expect(streamKey).toContainText('•');
  await expect(page.locator('body')).not.toContainText(created.stream_key);
  await expect(page.getByTestId('publish-url')).toHaveCount(0);
  await page.getByRole('button', { name: 'Reveal' }).click();
  await expect(streamKey).toHaveText(created.stream_key);
  await expect(page.getByTestId('publish-url')).toHaveText(`${rtmpUrl}/${created.stream_key}`);
  await screenshot(page, testInfo, 'live-stream-detail');

  await page.getByRole('button', { name: 'Reset key' }).click();
  await page.getByRole('dialog', { name: 'Reset the stream key?' }).getByRole('button', { name: 'Reset key' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Stream key reset' })).toBeVisible();
  const reset = await api.video.liveStreams.retrieve(liveStreamId);
  expect(reset.stream_key).not.toBe(created.stream_key);
  await expect(streamKey).toHaveText(reset.stream_key);
  await page.getByRole('button', { name: 'Hide' }).click();
  await expect(page.getByTestId('publish-url')).toHaveCount(0);

  await page.getByRole('button', { name: 'Disable', exact: true }).click();
  await expect(status).toHaveAttribute('data-status', 'disabled');
  expect((await api.video.liveStreams.retrieve(liveStreamId)).status).toBe('disabled');
  await expect(page.getByTestId('live-preview-placeholder')).toContainText('disabled');
  await page.getByRole('button', { name: 'Enable', exact: true }).click();
  await expect(status).toHaveAttribute('data-status', 'idle');
  expect((await api.video.liveStreams.retrieve(liveStreamId)).status).toBe('idle');

  // A change made elsewhere (here the API) reaches the open page without a reload.
  const navigations: string[] = [];
  page.on('framenavigated', (frame) => navigations.push(frame.url()));
  await api.video.liveStreams.disable(liveStreamId);
  await expect(status).toHaveAttribute('data-status', 'disabled', { timeout: 6_000 });
  await api.video.liveStreams.enable(liveStreamId);
  await expect(status).toHaveAttribute('data-status', 'idle', { timeout: 6_000 });
  expect(navigations, 'the page was not reloaded').toEqual([]);

  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog', { name: 'Delete this live stream?' }).getByRole('button', { name: 'Delete live stream' }).click();
  await expect(page).toHaveURL(/\/live-streams$/);
  await expect(page.locator(`tr[data-live-stream-id="${liveStreamId}"]`)).toHaveCount(0);
  await expect(page.getByText('No live streams yet')).toBeVisible();
  await expect(api.video.liveStreams.retrieve(liveStreamId)).rejects.toMatchObject({ status: 404 });
});

test('simulcast targets on a stream’s page: added (the API’s message for a bad URL shown), key hidden, locked while disabled, removed', async ({ page }, testInfo) => {
  const { keyframe, api } = started();
  const stream = await api.video.liveStreams.create({ playback_policies: ['public'], meta: { title: `Simulcast ${Date.now()}` } });
  await signIn(page, keyframe);
  await page.goto(`${keyframe.baseUrl}/live-streams/${stream.id}`);
  const section = page.getByRole('region', { name: 'Simulcast targets' });
  await expect(section).toContainText('None: add a target');

  const form = section.getByRole('form', { name: 'Add a simulcast target' });
  await form.getByLabel('Target URL').fill('https://live.example.com/app');
  await form.getByRole('button', { name: 'Add target' }).click();
  await expect(form.getByRole('alert')).toContainText('url: must be an rtmp://, rtmps:// or srt:// URL');

  const targetKey = `dashboard-key-${Date.now()}`;
  await form.getByLabel('Target URL').fill('rtmp://a.rtmp.example.com/live2');
  await form.getByLabel('Stream key').fill(targetKey);
  await form.getByLabel('Passthrough (optional)').fill('YouTube');
  await form.getByRole('button', { name: 'Add target' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Simulcast target added' })).toBeVisible();
  const row = section.getByTestId('simulcast-target');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('simulcast-target-url')).toHaveText('rtmp://a.rtmp.example.com/live2');
  await expect(row.getByTestId('simulcast-target-status').locator('[data-status]')).toHaveAttribute('data-status', 'idle');
  await expect(row.getByTestId('simulcast-target-key')).toContainText('•');
  await expect(row).toContainText('YouTube');
  await expect(page.locator('body')).not.toContainText(targetKey);
  const [created] = (await api.video.liveStreams.retrieve(stream.id)).simulcast_targets ?? [];
  expect(created).toMatchObject({ status: 'idle', url: 'rtmp://a.rtmp.example.com/live2', stream_key: targetKey, passthrough: 'YouTube' });

  // An srt:// URL carries its own stream id: the key field stands aside.
  await form.getByLabel('Target URL').fill('srt://srt.example.com:9000?streamid=abc');
  await expect(form.getByLabel(/^Stream key/)).toBeDisabled();
  await form.getByLabel('Target URL').fill('');
  await screenshot(page, testInfo, 'live-stream-simulcast-targets');

  // The table's rows carry no target keys either.
  await page.goto(`${keyframe.baseUrl}/live-streams`);
  await expect(page.locator(`tr[data-live-stream-id="${stream.id}"]`)).toBeVisible();
  expect(JSON.stringify(await (await page.request.get(`${keyframe.baseUrl}/api/dashboard/live-streams`)).json())).not.toContain(targetKey);
  await page.goto(`${keyframe.baseUrl}/live-streams/${stream.id}`);

  // Not idle: the form and the remove button are off, and the page says why.
  await api.video.liveStreams.disable(stream.id);
  await expect(section.getByTestId('simulcast-targets-locked')).toContainText('enable it to add or remove targets', { timeout: 6_000 });
  await expect(form.getByLabel('Target URL')).toBeDisabled();
  await expect(row.getByRole('button', { name: /^Remove simulcast target/ })).toBeDisabled();
  await api.video.liveStreams.enable(stream.id);
  await expect(section.getByTestId('simulcast-targets-locked')).toHaveCount(0, { timeout: 6_000 });

  await row.getByRole('button', { name: /^Remove simulcast target/ }).click();
  await page.getByRole('dialog', { name: 'Remove this simulcast target?' }).getByRole('button', { name: 'Remove target' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Simulcast target removed' })).toBeVisible();
  await expect(section.getByTestId('simulcast-target')).toHaveCount(0);
  expect(await api.video.liveStreams.retrieve(stream.id)).not.toHaveProperty('simulcast_targets');
  await api.video.liveStreams.delete(stream.id);
});
