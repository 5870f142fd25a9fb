import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Api, type Json } from '../support/api';
import {
  audioMedia,
  decodeFirstChannel,
  fetchAudioRendition,
  makeThreeLanguageSource,
  THREE_LANGUAGES,
  toneFrequency,
  type FetchedAudio,
} from '../support/audio-tracks';
import type { KeyframeServer } from '../support/keyframe-server';
import { MediaServer } from '../../harness/media-server';
import { sharedMediaPath } from '../support/paths';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';

// Every audio stream of a source plays: each becomes an audio track in the API and an alternative
// in the multivariant playlist's AUDIO group, and each rendition, fetched segment by segment like a
// player does, is AAC-LC 48 kHz (stereo, mono for a mono stream), decodes cleanly, joins without a
// gap or overlap at any segment boundary, lasts as long as its track, and carries its own stream
// (told apart by the tone each stream of the fixture plays).

const SECONDS = 14;
const SHARED_TWO_TRACKS = 'two_audio_tracks_ac3_aac.mp4';

test.describe.configure({ mode: 'serial' });

let server: KeyframeServer;
let api: Api;
let workDir: string;
let media: MediaServer;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  // Each step's time is printed: once in a CI run this hook ran out of its 120 s before the server
  // was up (no server log attached), and which step it was is the first thing to know next time.
  const began = Date.now();
  const step = <T>(name: string, work: Promise<T>): Promise<T> =>
    work.finally(() => console.log(`[audio-tracks setup] ${name} done at ${((Date.now() - began) / 1000).toFixed(1)} s`));
  workDir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-e2e-audio-tracks-'));
  await step('source', makeThreeLanguageSource(path.join(workDir, 'three-languages.mkv'), SECONDS));
  media = await step('media server', MediaServer.start({ roots: [workDir] }));
  server = await step('keyframe', startKeyframe({ label: 'audio-tracks' }));
  api = new Api(server.baseUrl, await step('token', server.createToken()));
});

test.afterAll(async () => {
  await media?.close();
  await disposeKeyframe(server);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const audioTracksOf = (asset: Json): Json[] => asset.tracks.filter((track: Json) => track.type === 'audio');

/** Checks one fetched rendition: codec and layout, clean decode, seams, continuity and length. */
const expectPlayableAudio = (fetched: FetchedAudio, { channels, duration }: { channels: number; duration: number }) => {
  const context = fetched.url;
  expect.soft(fetched.stream?.codec_name, `codec of ${context}`).toBe('aac');
  expect.soft(fetched.stream?.profile, `AAC profile of ${context}`).toBe('LC');
  expect.soft(fetched.stream?.sample_rate, `sample rate of ${context}`).toBe('48000');
  expect.soft(fetched.stream?.channels, `channels of ${context}`).toBe(channels);
  expect.soft(fetched.decodeErrors, `ffmpeg decode of the joined segments of ${context}`).toBe('');
  for (const [boundary, seam] of fetched.seamsMs.entries()) {
    expect.soft(Math.abs(seam), `seam ${boundary} → ${boundary + 1} of ${context} (ms)`).toBeLessThanOrEqual(1);
  }
  expect.soft(fetched.irregularSteps, `packet steps of one AAC frame throughout ${context}`).toEqual([]);
  expect.soft(Math.abs(fetched.span - duration), `decoded ${fetched.span.toFixed(4)} s of ${context} vs the track's ${duration} s`).toBeLessThanOrEqual(0.1);
};

let threeLanguages: { assetId: string; playbackId: string; asset: Json } | undefined;

test('three audio streams: three audio tracks in the API, named by their titles, with their languages', async () => {
  threeLanguages = await createPlayableAsset(api, media.fileUrl('three-languages.mkv'));
  const tracks = audioTracksOf(threeLanguages.asset);
  expect(tracks, JSON.stringify(threeLanguages.asset.tracks)).toEqual([
    // As Mux names it: the primary track after the first input (which names nothing here): "Default".
    expect.objectContaining({ type: 'audio', primary: true, name: 'Default', language_code: 'en', max_channels: 2, status: 'ready' }),
    expect.objectContaining({ type: 'audio', primary: false, name: 'Español', language_code: 'es', max_channels: 1, status: 'ready' }),
    expect.objectContaining({ type: 'audio', primary: false, name: 'Français 5.1', language_code: 'fr', max_channels: 6, status: 'ready' }),
  ]);
  for (const track of tracks) expect(track.duration, JSON.stringify(track)).toBeCloseTo(SECONDS, 1);
});

test('the multivariant AUDIO group lists each track: NAME, LANGUAGE, DEFAULT only on the primary, AUTOSELECT, CHANNELS', async () => {
  expect(threeLanguages, 'the asset of the previous test').toBeDefined();
  const { playbackId, asset } = threeLanguages!;
  const tracks = audioTracksOf(asset);
  const playlist = await loadMultivariant(multivariantUrl(server, playbackId));
  const audio = audioMedia(playlist.media);
  expect(audio.map((entry) => entry.attributes), playlist.text).toEqual([
    { TYPE: 'AUDIO', 'GROUP-ID': 'audio', NAME: 'Default', LANGUAGE: 'en', DEFAULT: 'YES', AUTOSELECT: 'YES', CHANNELS: '2', URI: `${playbackId}/audio.m3u8` },
    { TYPE: 'AUDIO', 'GROUP-ID': 'audio', NAME: 'Español', LANGUAGE: 'es', DEFAULT: 'NO', AUTOSELECT: 'YES', CHANNELS: '1', URI: `${playbackId}/audio-${tracks[1].id}.m3u8` },
    { TYPE: 'AUDIO', 'GROUP-ID': 'audio', NAME: 'Français 5.1', LANGUAGE: 'fr', DEFAULT: 'NO', AUTOSELECT: 'YES', CHANNELS: '2', URI: `${playbackId}/audio-${tracks[2].id}.m3u8` },
  ]);
  for (const variant of playlist.video) expect(variant.audioGroup, `AUDIO of ${variant.name}`).toBe('audio');
});

test('every audio rendition decodes, is gapless, lasts its track and carries its own stream (its tone)', async ({}, testInfo) => {
  expect(threeLanguages, 'the asset of the first test').toBeDefined();
  const { playbackId, asset } = threeLanguages!;
  const tracks = audioTracksOf(asset);
  const playlist = await loadMultivariant(multivariantUrl(server, playbackId));
  const report: Array<Record<string, unknown>> = [];
  for (const [index, entry] of audioMedia(playlist.media).entries()) {
    const expected = THREE_LANGUAGES[index]!;
    const fetched = await fetchAudioRendition(entry.url!, workDir);
    expectPlayableAudio(fetched, { channels: expected.channels === 1 ? 1 : 2, duration: tracks[index].duration });
    const frequency = toneFrequency(await decodeFirstChannel(fetched.joined));
    report.push({ url: fetched.url, channels: fetched.stream?.channels, span: fetched.span, seamsMs: fetched.seamsMs, frequency, expected: expected.frequency });
    expect.soft(Math.abs(frequency - expected.frequency), `tone of ${entry.attributes.NAME}: ${frequency.toFixed(1)} Hz, its stream plays ${expected.frequency} Hz`).toBeLessThan(expected.frequency * 0.02);
  }
  await testInfo.attach('audio-renditions.json', { body: JSON.stringify(report, null, 2), contentType: 'application/json' });
});

test('a request for an audio rendition the asset does not have is a 404', async () => {
  expect(threeLanguages, 'the asset of the first test').toBeDefined();
  const { playbackId } = threeLanguages!;
  for (const name of ['audio-doesnotexist', `audio-${audioTracksOf(threeLanguages!.asset)[0].id}`]) {
    const playlist = await fetch(server.url(`/${playbackId}/${name}.m3u8`));
    expect(playlist.status, `${name}.m3u8`).toBe(404);
    const segment = await fetch(server.url(`/${playbackId}/${name}/0.m4s`));
    expect(segment.status, `${name}/0.m4s`).toBe(404);
  }
});

test('the shared AC-3 + AAC sample: two audio tracks, both played (the 5.1 AC-3 one downmixed to stereo)', async ({ playbackMedia }) => {
  test.skip(!sharedMediaPath(SHARED_TWO_TRACKS), `${SHARED_TWO_TRACKS} is not in the shared media folder on this machine`);
  const { playbackId, asset } = await createPlayableAsset(api, playbackMedia.fileUrl(SHARED_TWO_TRACKS));
  const tracks = audioTracksOf(asset);
  expect(tracks, JSON.stringify(asset.tracks)).toEqual([
    expect.objectContaining({ primary: true, max_channels: 6, status: 'ready' }),
    expect.objectContaining({ primary: false, max_channels: 2, status: 'ready' }),
  ]);
  const playlist = await loadMultivariant(multivariantUrl(server, playbackId));
  const audio = audioMedia(playlist.media);
  // Audio only: the primary is the variant, both tracks are the alternatives of its AUDIO group.
  expect(audio.map((entry) => [entry.attributes.DEFAULT, entry.attributes.CHANNELS, entry.uri]), playlist.text).toEqual([
    ['YES', '2', `${playbackId}/audio.m3u8`],
    ['NO', '2', `${playbackId}/audio-${tracks[1].id}.m3u8`],
  ]);
  expect(playlist.variants.map((variant) => variant.audioGroup)).toEqual(['audio']);
  for (const [index, entry] of audio.entries()) {
    expectPlayableAudio(await fetchAudioRendition(entry.url!, workDir), { channels: 2, duration: tracks[index].duration });
  }
});
