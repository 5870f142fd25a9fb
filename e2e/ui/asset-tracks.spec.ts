import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { Api, type Json } from '../support/api';
import { createAdmin, screenshot, signIn } from '../support/dashboard';
import type { Fixtures } from '../support/fixtures';
import type { KeyframeServer } from '../support/keyframe-server';
import type { MediaServer } from '../../harness/media-server';
import { disposeKeyframe, expect, startKeyframe, test } from '../support/test';

// The asset page's tracks panel (every track with its status; add subtitles by URL, generate
// captions, edit, delete; transcript and .vtt of a ready text track) and the preview player's
// Audio and Subtitles menus, on a source with two audio streams (English 440 Hz, Spanish 880 Hz).
// Tests are independent (not serial): each finds or makes what it needs on the shared asset.

const TWO_AUDIO_FILE = 'ui_tracks_two_audio_320x240_4s.mp4';
const SUBTITLES_FILE = 'ui_tracks_subtitles.vtt';
const CUES = ['Hello from the tracks test', 'A second line of subtitles'];
const SUBTITLES = `WEBVTT\n\n00:00:00.000 --> 00:00:01.800\n${CUES[0]}\n\n00:00:02.000 --> 00:00:03.800\n${CUES[1]}\n`;

const writeTrackFixtures = (fixtures: Fixtures) => {
  const video = path.join(fixtures.dir, TWO_AUDIO_FILE);
  if (!existsSync(video)) {
    // prettier-ignore
    execFileSync('ffmpeg', [
      '-hide_banner', '-v', 'error', '-nostdin', '-y',
      '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30',
      '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
      '-f', 'lavfi', '-i', 'sine=frequency=880:sample_rate=48000',
      '-t', '4', '-map', '0:v', '-map', '1:a', '-map', '2:a',
      '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-ac', '2',
      '-metadata:s:a:0', 'language=eng', '-metadata:s:a:1', 'language=spa',
      '-movflags', '+faststart', `${video}.tmp.mp4`,
    ]);
    execFileSync('mv', [`${video}.tmp.mp4`, video]);
  }
  writeFileSync(path.join(fixtures.dir, SUBTITLES_FILE), SUBTITLES);
};

let server: KeyframeServer | undefined;
let api: Api;
let assetId = '';
let singleAudioAssetId = '';
let mediaServer: MediaServer;

test.beforeAll(async ({ media, fixtures }) => {
  test.setTimeout(120_000);
  writeTrackFixtures(fixtures);
  mediaServer = media;
  server = await startKeyframe({ label: 'ui-tracks' });
  await createAdmin(server);
  api = new Api(server.baseUrl, await server.createToken());
  const twoAudio = await api.createAsset({ inputs: [{ url: media.fileUrl(TWO_AUDIO_FILE) }], playback_policies: ['public'], meta: { title: 'Two audio tracks' } });
  const single = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')) }], playback_policies: ['public'] });
  assetId = twoAudio.id;
  singleAudioAssetId = single.id;
  expect((await api.waitForStatus(assetId, ['ready', 'errored'], 90_000)).status).toBe('ready');
  expect((await api.waitForStatus(singleAudioAssetId, ['ready', 'errored'], 90_000)).status).toBe('ready');
});
test.afterAll(async () => disposeKeyframe(server));

const started = (): KeyframeServer => {
  if (!server) throw new Error('server not started');
  return server;
};

const openAsset = async (page: Page, id: string) => {
  await signIn(page, started());
  await page.goto(started().url(`/assets/${id}`));
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
};

const tracksPanel = (page: Page) => page.getByRole('region', { name: 'Tracks' });
const trackRow = (page: Page, trackId: string) => tracksPanel(page).locator(`li[data-track-id="${trackId}"]`);
const statusOf = (row: Locator) => row.locator('[data-status]');

/** The asset's tracks as the API reports them (one request: the API limits polling to 1/s per asset). */
const apiTracks = async (id = assetId): Promise<Json[]> => (await api.get(`/video/v1/assets/${id}`)).json.data.tracks ?? [];

/** The audio tracks, the primary first (the API's order among tracks made together is not fixed). */
const audioTracks = async (): Promise<Json[]> =>
  (await apiTracks()).filter((track) => track.type === 'audio').sort((a, b) => Number(b.primary) - Number(a.primary));

const addSubtitlesInPage = async (page: Page, fields: { url: string; languageCode: string; name: string; closedCaptions?: boolean }) => {
  await tracksPanel(page).getByRole('button', { name: 'Add subtitles' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add subtitles' });
  await dialog.getByLabel('Subtitle file URL (WebVTT or SRT)').fill(fields.url);
  await dialog.getByLabel('Language code').fill(fields.languageCode);
  await dialog.getByLabel('Name (optional)').fill(fields.name);
  if (fields.closedCaptions) await dialog.getByLabel('Closed captions').check();
  await dialog.getByRole('button', { name: 'Add subtitles' }).click();
  await expect(dialog).toBeHidden();
  const row = tracksPanel(page).getByRole('listitem').filter({ hasText: fields.name });
  await expect(row).toHaveCount(1);
  const trackId = await row.getAttribute('data-track-id');
  expect(trackId).toBeTruthy();
  return { row, trackId: trackId! };
};

const deleteInPage = async (page: Page, row: Locator, name: string) => {
  await row.getByRole('button', { name: `Delete ${name}` }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete this track?' });
  await expect(confirm).toContainText(name);
  await confirm.getByRole('button', { name: 'Delete track' }).click();
  await expect(row).toHaveCount(0);
};

// A ready subtitle track on the two-audio asset, added through the API once (per worker).
let readySubtitles: Promise<Json> | undefined;
const ensureReadySubtitles = (): Promise<Json> => {
  readySubtitles ??= (async () => {
    const created = await api.post(`/video/v1/assets/${assetId}/tracks`, {
      url: mediaServer.fileUrl(SUBTITLES_FILE),
      type: 'text',
      text_type: 'subtitles',
      language_code: 'fr',
      name: 'French (ready)',
      closed_captions: true,
    });
    expect(created.status, created.text).toBe(201);
    const trackId = created.json.data.id as string;
    await expect
      .poll(async () => (await apiTracks()).find((track) => track.id === trackId)?.status, { timeout: 60_000, intervals: [1_100] })
      .toMatch(/ready|errored/);
    const track = (await apiTracks()).find((item) => item.id === trackId);
    expect(track?.status, `the subtitle track is ${JSON.stringify(track)}`).toBe('ready');
    return track;
  })();
  return readySubtitles;
};

test("the tracks list shows the video and the source's two audio tracks with their languages", async ({ page }, testInfo) => {
  const audio = await audioTracks();
  expect(audio.map((track) => [track.primary, track.language_code, track.status])).toEqual([
    [true, 'en', 'ready'],
    [false, 'es', 'ready'],
  ]);
  await openAsset(page, assetId);
  const panel = tracksPanel(page);
  await expect(panel.getByRole('heading', { name: 'Tracks' })).toBeVisible();
  await expect(panel.locator('li[data-track-type="video"]')).toContainText('320×240 at 30 fps');

  const primary = trackRow(page, audio[0].id);
  await expect(primary).toContainText(audio[0].name);
  await expect(primary).toContainText('Primary');
  await expect(primary).toContainText('English (en)');
  await expect(primary).toContainText('2 channels');
  await expect(primary).toContainText(/4\.\d\d s/);
  await expect(statusOf(primary)).toHaveAttribute('data-status', 'ready');
  // The primary audio track cannot be deleted (the API refuses it); the other one can.
  await expect(primary.getByRole('button', { name: /^Delete/ })).toHaveCount(0);

  const second = trackRow(page, audio[1].id);
  await expect(second).toContainText('Spanish');
  await expect(second).toContainText('Spanish (es)');
  await expect(second).not.toContainText('Primary');
  await expect(second.getByRole('button', { name: `Delete ${audio[1].name}` })).toBeVisible();
  await screenshot(page, testInfo, 'asset-tracks');
});

test('a subtitle track added by URL appears as preparing with its markers, and can be deleted', async ({ page }) => {
  await openAsset(page, assetId);
  // A download that never finishes keeps the track preparing whatever prepares it.
  const { row, trackId } = await addSubtitlesInPage(page, {
    url: mediaServer.url(`/slow/${SUBTITLES_FILE}`),
    languageCode: 'de',
    name: 'German (slow)',
    closedCaptions: true,
  });
  await expect(statusOf(row)).toHaveAttribute('data-status', 'preparing');
  await expect(row).toContainText('German (de)');
  await expect(row).toContainText('Closed captions');
  await expect(page.getByRole('status').filter({ hasText: 'Adding the subtitles “German (slow)”' })).toBeVisible();
  const track = (await apiTracks()).find((item) => item.id === trackId);
  expect(track).toMatchObject({ type: 'text', text_source: 'uploaded', language_code: 'de', closed_captions: true, name: 'German (slow)' });

  await deleteInPage(page, row, 'German (slow)');
  expect((await apiTracks()).some((item) => item.id === trackId)).toBe(false);
});

test('adding subtitles with a bad language code shows why in a plain sentence', async ({ page }) => {
  await openAsset(page, assetId);
  await tracksPanel(page).getByRole('button', { name: 'Add subtitles' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add subtitles' });
  await dialog.getByLabel('Subtitle file URL (WebVTT or SRT)').fill(mediaServer.fileUrl(SUBTITLES_FILE));
  await dialog.getByLabel('Language code').fill('not a language');
  await dialog.getByRole('button', { name: 'Add subtitles' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('The language code must be a BCP-47 language tag such as "en" or "pt-BR".');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
});

test('a subtitle track whose URL answers 404 errors, shows the reason in plain words, and can be deleted', async ({ page }, testInfo) => {
  await openAsset(page, assetId);
  const { row, trackId } = await addSubtitlesInPage(page, { url: mediaServer.url('/missing'), languageCode: 'it', name: 'Italian (missing)' });
  // No reload: the page polls while the track is preparing.
  await expect(statusOf(row)).toHaveAttribute('data-status', 'errored', { timeout: 60_000 });
  const track = (await apiTracks()).find((item) => item.id === trackId);
  expect(track?.status).toBe('errored');
  const reason = row.getByTestId('track-error');
  await expect(reason).toContainText(/^Keyframe could not [^.]+\./);
  for (const message of track.error.messages as string[]) {
    // The server's words, with any "field: " prefix turned into a sentence.
    const words = message.replace(/^[a-z_.[\]0-9]+: /, '');
    await expect(reason).toContainText(words.slice(1, 60));
  }
  if (track.error.type.includes('_')) await expect(reason).not.toContainText(track.error.type);
  await screenshot(page, testInfo, 'asset-track-errored');

  await deleteInPage(page, row, 'Italian (missing)');
  expect((await apiTracks()).some((item) => item.id === trackId)).toBe(false);
});

test('captions are generated from an audio track, in English only', async ({ page }) => {
  await openAsset(page, assetId);
  await tracksPanel(page).getByRole('button', { name: 'Generate captions' }).click();
  const dialog = page.getByRole('dialog', { name: 'Generate captions' });
  const audio = await audioTracks();
  await expect(dialog.getByLabel('From the audio track').locator('option')).toHaveCount(2);
  await dialog.getByLabel('From the audio track').selectOption(audio[1].id);
  const language = dialog.getByLabel('Spoken language');
  await expect(language.locator('option')).toHaveText(['English']);
  await expect(dialog).toContainText('captions in other languages are not available');
  await dialog.getByRole('button', { name: 'Generate captions' }).click();
  await expect(dialog).toBeHidden();

  const generated = (await apiTracks()).filter((track) => track.type === 'text' && track.text_source === 'generated_vod');
  expect(generated).toHaveLength(1);
  const row = trackRow(page, generated[0].id);
  await expect(row).toContainText('English (generated)');
  await expect(row).toContainText('Generated');
  await expect(row).toContainText('English (en)');
  await expect(statusOf(row)).toHaveAttribute('data-status', /preparing|ready|errored/);
  await deleteInPage(page, row, 'English (generated)');
});

test('a track is renamed from its Edit dialog', async ({ page }) => {
  const audio = await audioTracks();
  await openAsset(page, assetId);
  const row = trackRow(page, audio[1].id);
  await row.getByRole('button', { name: `Edit ${audio[1].name}` }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit track' });
  await expect(dialog.getByLabel('Name')).toHaveValue(audio[1].name);
  await dialog.getByLabel('Name').fill('Español');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText('Español');
  expect((await apiTracks()).find((track) => track.id === audio[1].id)?.name).toBe('Español');
  await api.patch(`/video/v1/assets/${assetId}/tracks/${audio[1].id}`, { name: audio[1].name });
});

test('the preview player shows no Audio or Subtitles menu when there is nothing to choose', async ({ page }) => {
  await openAsset(page, singleAudioAssetId);
  await expect(page.getByLabel('Quality').locator('option')).not.toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByLabel('Audio', { exact: true })).toHaveCount(0);
  await expect(page.getByLabel('Subtitles', { exact: true })).toHaveCount(0);
});

test('works from the keyboard and at phone width (390 px)', async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openAsset(page, assetId);
  const add = tracksPanel(page).getByRole('button', { name: 'Add subtitles' });
  for (let step = 0; step < 60 && !(await add.evaluate((element) => element === document.activeElement)); step += 1) {
    await page.keyboard.press('Tab');
  }
  await expect(add).toBeFocused();
  expect(await add.evaluate((element) => getComputedStyle(element).outlineStyle), 'focus is visible').not.toBe('none');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Add subtitles' });
  await expect(dialog.getByLabel('Subtitle file URL (WebVTT or SRT)')).toBeFocused();
  await page.keyboard.type(mediaServer.url(`/slow/${SUBTITLES_FILE}`));
  await page.keyboard.press('Tab');
  await expect(dialog.getByLabel('Language code')).toBeFocused();
  await page.keyboard.type('nl');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Dutch (keyboard)');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  await expect(dialog.getByLabel('Closed captions')).toBeChecked();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Add subtitles' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  const row = tracksPanel(page).getByRole('listitem').filter({ hasText: 'Dutch (keyboard)' });
  await expect(row).toContainText('Closed captions');

  // Delete from the keyboard: focus the row's Delete, Enter, then confirm.
  await row.getByRole('button', { name: 'Delete Dutch (keyboard)' }).focus();
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: 'Delete this track?' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Delete track' }).focus();
  await page.keyboard.press('Enter');
  await expect(row).toHaveCount(0);

  await expect(tracksPanel(page).locator('li[data-track-type="audio"]')).toHaveCount(2);
  const overflow = await page.evaluate(() => ({
    by: document.documentElement.scrollWidth - window.innerWidth,
    // What sticks out, to say why when it does.
    wide: [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(0, 8)
      .map((element) => `${element.tagName.toLowerCase()}.${(element.getAttribute('class') ?? '').slice(0, 60)} right=${Math.round(element.getBoundingClientRect().right)} ${(element.textContent ?? '').slice(0, 40)}`),
  }));
  expect(overflow.by, `the asset page fits 390 px; wider: ${overflow.wide.join(' | ')}`).toBeLessThanOrEqual(0);
  await tracksPanel(page).scrollIntoViewIfNeeded();
  await screenshot(page, testInfo, 'mobile-asset-tracks');
});

// The tests below need the text-track job, subtitle serving and multi-audio encoding (built on
// other branches): a ready subtitle track, and a second audio rendition that plays.

test('ready subtitles show their transcript inline and download as a .vtt file', async ({ page }, testInfo) => {
  const track = await ensureReadySubtitles();
  await openAsset(page, assetId);
  const row = trackRow(page, track.id);
  await expect(statusOf(row)).toHaveAttribute('data-status', 'ready');
  await expect(row).toContainText('Closed captions');
  await row.getByRole('button', { name: 'Show transcript of French (ready)' }).click();
  const transcript = row.getByLabel('Transcript of French (ready)');
  for (const cue of CUES) await expect(transcript).toContainText(cue);
  await expect(transcript).not.toContainText('-->');
  await expect(transcript).not.toContainText('WEBVTT');
  await screenshot(page, testInfo, 'asset-track-transcript');

  const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: 'Download .vtt of French (ready)' }).click()]);
  expect(download.suggestedFilename()).toBe('French (ready).fr.vtt');
  const vtt = await readFile((await download.path())!, 'utf8');
  expect(vtt.startsWith('WEBVTT')).toBe(true);
  expect(vtt).toMatch(/00:00:00\.000 --> 00:00:01\.800/);
  for (const cue of CUES) expect(vtt).toContain(cue);
});

test("the preview player's Audio menu lists both audio tracks and switches to the second", async ({ page }, testInfo) => {
  const audio = await audioTracks();
  // Every media response from the page's first request on, so a failure can say what hls.js fetched.
  const fetched: { url: string; status: number }[] = [];
  page.on('response', (response) => {
    if (/\.(m3u8|m4s|mp4)$/.test(response.url())) fetched.push({ url: new URL(response.url()).pathname, status: response.status() });
  });
  const secondAudioSegments = () => fetched.filter((item) => item.url.includes(`/audio-${audio[1].id}/`) && item.url.endsWith('.m4s'));
  await openAsset(page, assetId);
  const menu = page.getByLabel('Audio', { exact: true });
  const video = page.getByTestId('preview-video');
  await expect(menu.locator('option')).toHaveText([`${audio[0].name} (en)`, `${audio[1].name} (es)`], { timeout: 60_000 });
  await expect(menu).toHaveValue('0');

  const chooseSpanish = async () => {
    await menu.selectOption({ label: `${audio[1].name} (es)` });
    await video.evaluate((element: HTMLVideoElement) => void element.play());
  };
  const switched = () => expect.poll(() => secondAudioSegments().length, { timeout: 30_000 }).toBeGreaterThan(0);
  await chooseSpanish();
  try {
    // Twice in ~40 full CI runs the first choice was not followed (no request for the second track
    // in 90 s) and the cause is not known yet; a viewer would choose again, so the test does too,
    // and says so in its annotations and attachment so the next look has the evidence.
    await switched().catch(async () => {
      testInfo.annotations.push({ type: 'audio-switch', description: `chosen again; menu showed ${await menu.inputValue()}` });
      await chooseSpanish();
      await switched();
    });
    await expect(menu).toHaveValue('1');
  } finally {
    const state = await video.evaluate((element: HTMLVideoElement) => ({
      currentTime: element.currentTime,
      paused: element.paused,
      readyState: element.readyState,
      buffered: [...Array(element.buffered.length).keys()].map((index) => [element.buffered.start(index), element.buffered.end(index)]),
      error: element.error?.message ?? null,
    }));
    await testInfo.attach('audio-switch.json', { body: JSON.stringify({ state, menu: await menu.inputValue(), fetched }, null, 2), contentType: 'application/json' });
  }
  expect(secondAudioSegments().every((item) => item.status === 200), JSON.stringify(secondAudioSegments())).toBe(true);
  await expect.poll(() => video.evaluate((element: HTMLVideoElement) => element.currentTime), { timeout: 60_000 }).toBeGreaterThan(1);
  await expect(page.getByText(/^Playback failed/)).toHaveCount(0);
});

test("the preview player's Subtitles menu offers Off and the ready subtitles, and shows their cues", async ({ page }) => {
  await ensureReadySubtitles();
  await openAsset(page, assetId);
  const menu = page.getByLabel('Subtitles', { exact: true });
  await expect(menu.locator('option')).toHaveText(['Off', 'French (ready) (fr)'], { timeout: 60_000 });
  await menu.selectOption({ label: 'French (ready) (fr)' });
  const video = page.getByTestId('preview-video');
  await video.evaluate((element: HTMLVideoElement) => void element.play());
  const showingCues = () =>
    video.evaluate((element: HTMLVideoElement) =>
      [...element.textTracks].filter((track) => track.mode === 'showing').flatMap((track) => [...(track.cues ?? [])].map((cue) => (cue as VTTCue).text)),
    );
  await expect.poll(showingCues, { timeout: 60_000 }).toContain(CUES[0]);

  await menu.selectOption({ label: 'Off' });
  await expect.poll(showingCues).toEqual([]);
});
