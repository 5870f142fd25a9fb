import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Mux from '@mux/mux-node';
import { Api, type Json } from '../support/api';
import {
  audioMedia,
  decodeFirstChannel,
  fetchAudioRendition,
  makeMedia,
  rmsBetween,
  sineInput,
  toneFrequency,
  type FetchedAudio,
} from '../support/audio-tracks';
import { httpGet } from '../support/hls';
import { assetDirsOf, type KeyframeServer } from '../support/keyframe-server';
import { MediaServer } from '../../harness/media-server';
import { expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, muxClient, startKeyframe } from '../support/test';
import { WebhookReceiver } from '../../harness/webhook-receiver';

// Audio files added to a ready asset through @mux/mux-node (`video.assets.createTrack`), as an
// integrator adds a dubbed language: each is fetched, checked and aligned to the video (a shorter
// file padded with silence, a longer one cut), then plays as another AUDIO alternative of the
// multivariant playlist, signed or not. A file that is not audio errors its track and nothing
// else; deleting a track takes it out of playback at once; the primary track stays.

test.describe.configure({ mode: 'serial' });

const VIDEO_SECONDS = 10;
const LOUD = 0.05;
const SILENT = 0.001;

let server: KeyframeServer;
let api: Api;
let mux: Mux;
let receiver: WebhookReceiver;
let media: MediaServer;
let workDir: string;
let assetId: string;
let playbackId: string;
let videoDuration: number;
const added: Record<'shorter' | 'longer', Json> = { shorter: undefined, longer: undefined };

test.beforeAll(async () => {
  test.setTimeout(180_000);
  workDir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-e2e-added-audio-'));
  const at = (name: string) => path.join(workDir, name);
  await makeMedia(at('video.mp4'), [
    '-f', 'lavfi', '-i', `testsrc2=size=640x360:rate=30:duration=${VIDEO_SECONDS}`, ...sineInput(440, VIDEO_SECONDS),
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-ac', '2', '-movflags', '+faststart',
  ]);
  await makeMedia(at('shorter.mp3'), [...sineInput(1000, 4), '-ac', '2', '-c:a', 'libmp3lame']);
  await makeMedia(at('longer.m4a'), [...sineInput(1500, 16), '-ac', '2', '-c:a', 'aac']);
  await makeMedia(at('video-only.mp4'), ['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30:duration=2', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p']);
  // An upload cut off before its index (ffmpeg writes moov last): random bytes would be "guessed" as
  // raw H.263 about once in 200 runs and get the other unreadable-file message.
  const longer = await readFile(at('longer.m4a'));
  await writeFile(at('corrupt.m4a'), longer.subarray(0, Math.floor(longer.length / 2)));
  media = await MediaServer.start({ roots: [workDir] });
  server = await startKeyframe({ label: 'added-audio-tracks' });
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  receiver = await (await WebhookReceiver.start()).subscribeTo(server);
  const created = await mux.video.assets.create({ inputs: [{ url: media.fileUrl('video.mp4') }], playback_policies: ['public'] });
  const ready = await api.waitForStatus(created.id, ['ready', 'errored'], 120_000);
  expect(ready.status, JSON.stringify(ready.errors)).toBe('ready');
  assetId = ready.id;
  playbackId = ready.playback_ids[0].id;
  videoDuration = ready.tracks.find((track: Json) => track.type === 'video').duration;
});

test.afterAll(async () => {
  await receiver?.close();
  await media?.close();
  await disposeKeyframe(server);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** Waits for the track's `.ready` or `.errored` webhook and returns the track as the API shows it then. */
const settled = async (trackId: string): Promise<Json> => {
  await receiver.waitFor(
    () => receiver.about(trackId).find((entry) => ['video.asset.track.ready', 'video.asset.track.errored'].includes(entry.event.type)),
    `track ${trackId} ready or errored`,
    120_000,
  );
  const asset = await mux.video.assets.retrieve(assetId);
  return asset.tracks?.find((track) => track.id === trackId);
};

const addAudio = async (file: string, languageCode: string, name?: string) => {
  const track = await mux.video.assets.createTrack(assetId, { url: media.fileUrl(file), type: 'audio', language_code: languageCode, ...(name && { name }) });
  expect(track, JSON.stringify(track)).toMatchObject({ id: expect.any(String), type: 'audio', status: 'preparing', primary: false, language_code: languageCode });
  return { ...track, id: track.id! };
};

const renditionOf = async (trackId: string, query = ''): Promise<string | undefined> => {
  const playlist = await loadMultivariant(multivariantUrl(server, playbackId, query));
  return audioMedia(playlist.media).find((entry) => entry.uri?.startsWith(`${playbackId}/audio-${trackId}.m3u8`))?.url;
};

const expectAligned = (fetched: FetchedAudio) => {
  expect.soft(fetched.decodeErrors, `decode of ${fetched.url}`).toBe('');
  expect.soft(fetched.stream?.codec_name).toBe('aac');
  expect.soft(fetched.stream?.channels).toBe(2);
  for (const seam of fetched.seamsMs) expect.soft(Math.abs(seam), `seams of ${fetched.url} (ms)`).toBeLessThanOrEqual(1);
  expect.soft(Math.abs(fetched.span - videoDuration), `decoded ${fetched.span} s of ${fetched.url} vs the video's ${videoDuration} s`).toBeLessThanOrEqual(0.1);
};

test('a shorter file: ready with the video’s duration, audible from the start, padded with silence at the end', async () => {
  const track = await addAudio('shorter.mp3', 'de', 'Deutsch');
  const ready = await settled(track.id);
  expect(ready, JSON.stringify(ready)).toMatchObject({ status: 'ready', name: 'Deutsch', max_channels: 2 });
  expect(ready.duration).toBeCloseTo(videoDuration, 3);
  added.shorter = ready;

  const url = await renditionOf(track.id);
  expect(url, 'the track in the AUDIO group').toBeDefined();
  const fetched = await fetchAudioRendition(url!, workDir);
  expectAligned(fetched);
  const samples = await decodeFirstChannel(fetched.joined);
  expect(rmsBetween(samples, 0, 0.5), 'audible in its first half second').toBeGreaterThan(LOUD);
  expect(Math.abs(toneFrequency(samples.subarray(0, 48_000 * 3)) - 1000), 'its own tone (1 kHz)').toBeLessThan(20);
  expect(rmsBetween(samples, 4.5, videoDuration), 'silence after its 4 s, to the end of the video').toBeLessThan(SILENT);
});

test('a longer file: ready with the video’s duration, cut there, audible to the end', async () => {
  const track = await addAudio('longer.m4a', 'it');
  const ready = await settled(track.id);
  expect(ready, JSON.stringify(ready)).toMatchObject({ status: 'ready', name: 'Italian' });
  expect(ready.duration).toBeCloseTo(videoDuration, 3);
  added.longer = ready;

  const fetched = await fetchAudioRendition((await renditionOf(track.id))!, workDir);
  expectAligned(fetched);
  const samples = await decodeFirstChannel(fetched.joined);
  expect(rmsBetween(samples, videoDuration - 1, videoDuration - 0.1), 'audible in its last second').toBeGreaterThan(LOUD);
  expect(Math.abs(toneFrequency(samples) - 1500), 'its own tone (1.5 kHz)').toBeLessThan(30);
});

test('webhooks: video.asset.track.created, then .ready, with the track and its asset', async () => {
  for (const track of [added.shorter, added.longer]) {
    expect(track, 'tracks of the previous tests').toBeDefined();
    const events = receiver.accepted(track.id).map((entry) => entry.event);
    expect(events.map((event) => event.type)).toEqual(['video.asset.track.created', 'video.asset.track.ready']);
    expect(events[1].data).toMatchObject({ id: track.id, type: 'audio', status: 'ready', asset_id: assetId, duration: track.duration });
  }
});

test('a file that is not audio errors its track with the reason; the asset and its other tracks play on', async () => {
  const corrupt = await addAudio('corrupt.m4a', 'fr');
  const videoOnly = await addAudio('video-only.mp4', 'es');
  const corruptTrack = await settled(corrupt.id);
  const videoOnlyTrack = await settled(videoOnly.id);
  expect(corruptTrack, JSON.stringify(corruptTrack)).toMatchObject({ status: 'errored', error: { type: 'invalid_input', messages: [expect.stringMatching(/could not be read as audio or video \(ffprobe: moov atom not found\)/)] } });
  expect(videoOnlyTrack, JSON.stringify(videoOnlyTrack)).toMatchObject({ status: 'errored', error: { type: 'invalid_input', messages: [expect.stringMatching(/only video/)] } });
  expect(receiver.accepted(corrupt.id).map((entry) => entry.event.type)).toEqual(['video.asset.track.created', 'video.asset.track.errored']);

  const asset = await api.waitForStatus(assetId, ['ready', 'errored']);
  expect(asset.status).toBe('ready');
  const playlist = await loadMultivariant(multivariantUrl(server, playbackId));
  expect(audioMedia(playlist.media).map((entry) => entry.attributes.NAME), playlist.text).toEqual(['Default', 'Deutsch', 'Italian']);
  expect((await httpGet(server.url(`/${playbackId}/audio-${corrupt.id}.m3u8`))).status).toBe(404);
});

test('?max_resolution caps the video variants only: every audio track is still offered', async () => {
  const playlist = await loadMultivariant(multivariantUrl(server, playbackId, 'max_resolution=270p'));
  expect(playlist.video.map((variant) => variant.name), playlist.text).toEqual(['270p']);
  expect(audioMedia(playlist.media).map((entry) => entry.attributes.NAME)).toEqual(['Default', 'Deutsch', 'Italian']);
  expect(playlist.video[0]?.audioGroup).toBe('audio');
});

test('a signed playback ID plays the added tracks with a token, and nothing without one', async () => {
  const key = await mux.system.signingKeys.create();
  const signed = await mux.video.assets.createPlaybackId(assetId, { policy: 'signed' });
  const token = await mux.jwt.signPlaybackId(signed.id, { keyId: key.id, keySecret: key.private_key!, type: 'video' });
  const playlist = await loadMultivariant(server.url(`/${signed.id}.m3u8?token=${token}`));
  const entry = audioMedia(playlist.media).find((candidate) => candidate.attributes.NAME === 'Deutsch');
  expect(entry?.uri, playlist.text).toMatch(new RegExp(`^${signed.id}/audio-${added.shorter.id}\\.m3u8\\?kfp=`));
  const fetched = await fetchAudioRendition(entry!.url!, workDir);
  expectAligned(fetched);
  const bare = await httpGet(server.url(`/${signed.id}/audio-${added.shorter.id}.m3u8`));
  expect(bare.status, bare.text).toBe(403);
  const bareSegment = await httpGet(server.url(`/${signed.id}/audio-${added.shorter.id}/0.m4s`));
  expect(bareSegment.status, bareSegment.text).toBe(403);
});

test('DELETE takes the track out of the multivariant playlist and off disk; its playlist and segments 404', async () => {
  const trackId = added.shorter.id;
  const segmentUrl = server.url(`/${playbackId}/audio-${trackId}/0.m4s`);
  expect((await httpGet(segmentUrl)).status, 'served before the delete').toBe(200);
  await mux.video.assets.deleteTrack(assetId, trackId);
  const playlist = await loadMultivariant(multivariantUrl(server, playbackId));
  expect(audioMedia(playlist.media).map((entry) => entry.attributes.NAME), playlist.text).toEqual(['Default', 'Italian']);
  expect((await httpGet(server.url(`/${playbackId}/audio-${trackId}.m3u8`))).status).toBe(404);
  expect((await httpGet(segmentUrl)).status).toBe(404);
  // Every node's disk (other nodes hear of the delete a moment after it answered).
  const leftOnDisk = () =>
    assetDirsOf(server, assetId).flatMap((dir) => [path.join(dir, 'hls', `audio-${trackId}`), path.join(dir, 'tracks', trackId)].filter((folder) => existsSync(folder)));
  await expect.poll(leftOnDisk, { timeout: 10_000 }).toEqual([]);
  await receiver.waitForEvent('video.asset.track.deleted', trackId);
});

test('the primary audio track cannot be deleted (400), and stays', async () => {
  const asset = await mux.video.assets.retrieve(assetId);
  const primary = asset.tracks?.find((track) => track.type === 'audio' && track.primary);
  expect(primary).toBeDefined();
  await expect(mux.video.assets.deleteTrack(assetId, primary!.id!)).rejects.toMatchObject({ status: 400 });
  const playlist = await loadMultivariant(multivariantUrl(server, playbackId));
  expect(audioMedia(playlist.media)[0]?.attributes).toMatchObject({ NAME: 'Default', DEFAULT: 'YES', URI: `${playbackId}/audio.m3u8` });
});

test('an audio input of the create request becomes a ready track too', async () => {
  const created = await mux.video.assets.create({
    inputs: [{ url: media.fileUrl('video.mp4') }, { url: media.fileUrl('shorter.mp3'), type: 'audio', language_code: 'pt-BR' }],
    playback_policies: ['public'],
  });
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 120_000);
  expect(asset.status).toBe('ready');
  const pending = asset.tracks.find((track: Json) => track.type === 'audio' && !track.primary);
  expect(pending, JSON.stringify(asset.tracks)).toMatchObject({ language_code: 'pt-BR', name: 'Brazilian Portuguese' });
  await receiver.waitForEvent('video.asset.track.ready', pending.id, { timeoutMs: 120_000 });
  const playlist = await loadMultivariant(multivariantUrl(server, asset.playback_ids[0].id));
  expect(audioMedia(playlist.media).map((entry) => entry.attributes.LANGUAGE)).toEqual(['und', 'pt-BR']);
});

test('video_quality "basic" (baseline) refuses an added audio track: 400', async () => {
  const created = await mux.video.assets.create({ inputs: [{ url: media.fileUrl('video-only.mp4') }], playback_policies: ['public'], video_quality: 'basic' });
  expect((await api.waitForStatus(created.id, ['ready', 'errored'], 120_000)).status).toBe('ready');
  await expect(
    mux.video.assets.createTrack(created.id, { url: media.fileUrl('shorter.mp3'), type: 'audio', language_code: 'de' }),
  ).rejects.toMatchObject({ status: 400, error: { error: { type: 'invalid_parameters', messages: [expect.stringMatching(/plus/)] } } });
});
