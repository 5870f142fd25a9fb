import { createAdmin, screenshot, signIn } from '../support/dashboard';
import { getFreePort } from '../support/keyframe-server';
import { startLiveKeyframeWithRtmps, type LiveServer } from '../support/live';
import { publishTestPattern } from '../support/live-publisher';
import { disposeKeyframe, expect, muxClient, test } from '../support/test';

// The dashboard's live stream page while a real broadcast runs: the badge turns active on its own,
// the preview plays the live stream, "Complete" ends it, and the recording shows up and links to
// its asset. The server also takes RTMPS, whose URL the page shows with the self-signed note, and
// the broadcast is published over it; it takes SRT too, whose URL with the stream's passphrase
// the page shows once the key is revealed.

let live: LiveServer | undefined;

test.afterAll(async () => disposeKeyframe(live?.server));

test('a broadcast seen from the dashboard: active badge, live preview, complete, the recording linked', async ({ page }, testInfo) => {
  const srtPort = await getFreePort();
  const withRtmps = await startLiveKeyframeWithRtmps('live-dashboard', { SRT_PORT: String(srtPort) });
  live = withRtmps;
  await createAdmin(live.server);
  const mux = muxClient(live.server, await live.server.createToken());
  const stream = await mux.video.liveStreams.create({ playback_policies: ['public'], new_asset_settings: { playback_policies: ['public'] }, reconnect_window: 30 });

  await signIn(page, live.server);
  await page.goto(live.server.url(`/live-streams/${stream.id}`));
  const badge = page.getByTestId('live-stream-status');
  await expect(badge).toContainText('idle');
  await expect(page.getByTestId('rtmps-url')).toHaveText(`rtmps://127.0.0.1:${withRtmps.rtmpsPort}/app`);
  await expect(page.getByText(/Self-signed certificate/)).toBeVisible();
  await expect(page.getByTestId('srt-url')).toHaveText(`srt://127.0.0.1:${srtPort}`);
  await expect(page.getByTestId('srt-publish-url')).toHaveCount(0);
  await page.getByRole('button', { name: 'Reveal' }).click();
  await expect(page.getByTestId('srt-publish-url')).toHaveText(`srt://127.0.0.1:${srtPort}?streamid=${stream.stream_key}&passphrase=${stream.srt_passphrase}`);

  const publisher = publishTestPattern({ ingestUrl: withRtmps.rtmpsUrl(stream.stream_key) });
  try {
    await expect(badge).toContainText('active', { timeout: 20_000 });
    const video = page.getByTestId('preview-video');
    await expect.poll(() => video.evaluate((element) => (element as HTMLVideoElement).currentTime), { timeout: 30_000 }).toBeGreaterThan(1);
    await screenshot(page, testInfo, 'live-stream-active');

    await page.getByRole('button', { name: 'Complete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'End broadcast' }).click();
    await expect(badge).toContainText('idle', { timeout: 20_000 });
  } finally {
    await publisher.stop();
  }
  const { recent_asset_ids: recent } = await mux.video.liveStreams.retrieve(stream.id);
  expect(recent).toHaveLength(1);
  const recording = page.getByTestId('recent-recordings').locator(`[data-asset-id="${recent![0]}"]`);
  await expect(recording).toBeVisible({ timeout: 10_000 });
  await recording.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/assets/${recent![0]}`));
  await expect(page.getByText(/Recording of live stream/)).toBeVisible();
});
