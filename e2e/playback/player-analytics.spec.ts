import type Mux from '@mux/mux-node';
import type { Page } from '@playwright/test';
import { Api } from '../support/api';
import type { KeyframeServer } from '../support/keyframe-server';
import { createPlayableAsset, expect, test } from '../support/playback';
import { disposeKeyframe, muxClient, startKeyframe } from '../support/test';

// Playback analytics end to end, with nothing simulated: the real @mux/mux-player on Keyframe's
// player page, in the system Chromium, reports through its bundled mux-embed to Keyframe's own
// origin (the default collection domain), and the views it made are read back through
// @mux/mux-node's data.* calls. What the player did is measured in the page from its own media
// events, independently of mux-embed, and compared with what the Data API says.

// Real-time playback must not share two cores with another worker's encodes.
test.use({ cpuLock: 'exclusive' });
test.describe.configure({ mode: 'serial' });

let server: KeyframeServer;
let mux: Mux;
let assetId: string;
let playbackId: string;

type PlayerLog = { playedMs: number; rebuffers: number; seeks: number; currentTime: number; paused: boolean; error: string | null };

// Counts, from the media events <mux-player> re-dispatches, how long it was in the playing state
// and how often it stalled while playing (a `waiting` not caused by a seek).
const trackPlayer = (page: Page) =>
  page.evaluate(async () => {
    await customElements.whenDefined('mux-player');
    const player = document.querySelector('mux-player') as HTMLMediaElement;
    const log = { playedMs: 0, rebuffers: 0, seeks: 0, since: null as number | null, seeking: false };
    const stop = () => {
      if (log.since !== null) log.playedMs += performance.now() - log.since;
      log.since = null;
    };
    player.addEventListener('playing', () => {
      log.seeking = false;
      log.since ??= performance.now();
    });
    player.addEventListener('seeking', () => {
      stop();
      log.seeking = true;
      log.seeks += 1;
    });
    player.addEventListener('waiting', () => {
      if (!log.seeking && log.since !== null) log.rebuffers += 1;
      stop();
    });
    for (const name of ['pause', 'ended', 'emptied']) player.addEventListener(name, stop);
    (window as unknown as { playerLog: typeof log }).playerLog = log;
  });

const readPlayer = (page: Page): Promise<PlayerLog> =>
  page.evaluate(() => {
    const log = (window as unknown as { playerLog: { playedMs: number; rebuffers: number; seeks: number; since: number | null } }).playerLog;
    const player = document.querySelector('mux-player') as HTMLMediaElement & { error: { message?: string } | null };
    const running = log.since === null ? 0 : performance.now() - log.since;
    return { playedMs: log.playedMs + running, rebuffers: log.rebuffers, seeks: log.seeks, currentTime: player.currentTime, paused: player.paused, error: player.error?.message ?? null };
  });

const waitForPlayer = async (page: Page, done: (log: PlayerLog) => boolean, what: string): Promise<PlayerLog> => {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const log = await readPlayer(page);
    expect(log.error, 'mux-player error').toBeNull();
    if (done(log)) return log;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(log)}`);
    await page.waitForTimeout(100);
  }
};

const control = (page: Page, action: 'play' | 'pause' | { seekTo: number }) =>
  page.evaluate(async (action) => {
    const player = document.querySelector('mux-player') as HTMLMediaElement;
    if (action === 'play') await player.play();
    else if (action === 'pause') player.pause();
    else player.currentTime = action.seekTo;
  }, action);

const viewsOf = async (filters: string[]) => (await mux.data.videoViews.list({ filters, timeframe: ['1:hours'], limit: 25 })).data;

test.beforeAll(async ({ playbackFixtures, playbackMedia }) => {
  test.setTimeout(240_000);
  server = await startKeyframe({ label: 'player-analytics' });
  const token = await server.createToken();
  mux = muxClient(server, token);
  await playbackFixtures.ensure('lowres40s');
  ({ assetId, playbackId } = await createPlayableAsset(new Api(server.baseUrl, token), playbackMedia.fileUrl(playbackFixtures.file('lowres40s')), {
    meta: { title: 'Analytics test pattern' },
  }));
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

test('mux-player plays 20 s with a pause and a seek: one view whose playing time, startup, seeks and rebuffers match the player', async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto(server.url(`/player/${playbackId}?muted`));
  await trackPlayer(page);
  await control(page, 'play');
  await waitForPlayer(page, (log) => log.currentTime >= 8, 'the player did not reach 8 s');
  await control(page, 'pause');
  await page.waitForTimeout(2_000);
  await control(page, { seekTo: 20 });
  await waitForPlayer(page, (log) => log.seeks === 1 && log.currentTime >= 20, 'the seek to 20 s did not land');
  await control(page, 'play');
  await waitForPlayer(page, (log) => log.playedMs >= 20_000, 'the player did not play 20 s in all');
  await control(page, 'pause');
  const played = await readPlayer(page);
  // Leaving the page ends the view: mux-embed sends its viewend with sendBeacon on pagehide.
  await page.goto('about:blank');

  const filters = [`asset_id:${assetId}`];
  await expect.poll(async () => (await viewsOf(filters)).length, { timeout: 30_000 }).toBe(1);
  const [summary] = await viewsOf(filters);
  // The view is complete once its viewend is in (beacons are written in batches).
  await expect
    .poll(async () => (await mux.data.videoViews.retrieve(summary!.id)).data.events.map((event) => event.name), { timeout: 30_000 })
    .toContain('viewend');
  const view = (await mux.data.videoViews.retrieve(summary!.id)).data;
  expect({ asset_id: view.asset_id, playback_id: view.playback_id }).toEqual({ asset_id: assetId, playback_id: playbackId });
  const report = { played, view: { view_playing_time: view.view_playing_time, watch_time: view.watch_time, time_to_first_frame: view.time_to_first_frame, view_seek_count: view.view_seek_count, buffering_count: view.buffering_count } };
  await test.info().attach('player-and-view.json', { body: JSON.stringify(report, null, 2), contentType: 'application/json' });

  expect(Math.abs(Number(view.view_playing_time) - played.playedMs), `playing time: ${JSON.stringify(report)}`).toBeLessThanOrEqual(2_000);
  expect(Number(view.watch_time)).toBeGreaterThanOrEqual(Number(view.view_playing_time));
  expect(view.time_to_first_frame, 'startup time').toBeGreaterThan(0);
  expect(view.view_seek_count, 'seeks').toBe(played.seeks);
  // Keyframe counts the rebuffers mux-embed reports; mux-embed decides what is one, and does not
  // always count a short `waiting` the page saw (CI: the page 1, mux-embed 0, on a loaded box).
  const rebufferEvents = view.events.filter((event) => event.name === 'rebufferstart').length;
  expect(view.buffering_count, `rebuffers reported: ${JSON.stringify(report)}`).toBe(rebufferEvents);
  expect(view.buffering_count, 'no rebuffer the player did not have').toBeLessThanOrEqual(played.rebuffers);
  expect(view.player_software, 'the player named in the view').toBe('mux-player');
  expect(view.viewer_application_name, 'browser').toMatch(/Chrom/);
  expect(view.exit_before_video_start).toBe(false);

  const overall = await mux.data.metrics.getOverallValues('playing_time', { filters, timeframe: ['1:hours'] });
  expect(Math.abs(Number(overall.data.value) - played.playedMs)).toBeLessThanOrEqual(2_000);
  expect(overall.data.total_views).toBe(1);
});

test('two players on one page are two views', async ({ page }) => {
  test.setTimeout(180_000);
  const title = `Two players ${Date.now()}`;
  const src = server.url(`/player/${playbackId}?autoplay=muted&metadata-video-title=${encodeURIComponent(title)}`);
  await page.goto(server.url('/api/health'));
  await page.setContent(`<iframe id="a" src="${src}" style="width:480px;height:270px"></iframe><iframe id="b" src="${src}" style="width:480px;height:270px"></iframe>`);
  for (const frame of page.frames().filter((candidate) => candidate !== page.mainFrame())) {
    await expect
      .poll(() => frame.evaluate(() => (document.querySelector('mux-player') as HTMLMediaElement | null)?.currentTime ?? 0), { timeout: 90_000 })
      .toBeGreaterThan(3);
  }
  await page.goto('about:blank');

  const filters = [`video_title:${title}`];
  await expect.poll(async () => new Set((await viewsOf(filters)).map((view) => view.id)).size, { timeout: 30_000 }).toBe(2);
  const views = await mux.data.metrics.getOverallValues('views', { filters, timeframe: ['1:hours'] });
  expect(views.data.value).toBe(2);
});
