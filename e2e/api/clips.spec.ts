import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { Api, expectApiError, type Json } from '../support/api';
import {
  audioWindowLevels,
  closestFrame,
  decodeFrames,
  FRAME_RATE,
  makeSource,
  makeTempDir,
  probeStreams,
  removeDir,
} from '../support/clip-media';
import type { KeyframeServer } from '../support/keyframe-server';
import { MediaServer } from '../../harness/media-server';
import type Mux from '@mux/mux-node';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';

// Asset clips (inputs[0].url = mux://assets/{id}): cut frame-accurately from the source's kept
// file. Each clip is made with master_access temporary, so its own file can be downloaded and its
// decoded pictures compared with the source's frames at start_time and end_time.

const FRAME = 1 / FRAME_RATE;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: KeyframeServer;
let api: Api;
let mux: Mux;
let media: MediaServer;
let dir: string;
let sourceFrames: Buffer[];
let source: Json;
let audioSource: Json;

const masterFile = async (assetId: string, name: string): Promise<string> => {
  const deadline = Date.now() + 60_000;
  let asset = (await api.get(`/video/v1/assets/${assetId}`)).json.data;
  while (asset.master?.status !== 'ready' && Date.now() < deadline) {
    await sleep(1_100);
    asset = (await api.get(`/video/v1/assets/${assetId}`)).json.data;
  }
  expect(asset.master?.status, JSON.stringify(asset)).toBe('ready');
  const response = await fetch(asset.master.url);
  expect(response.status).toBe(200);
  const file = path.join(dir, name);
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  return file;
};

const createClip = async (sourceId: string, range: { start_time?: number; end_time?: number }, extra: Json = {}) => {
  // Through @mux/mux-node, as an application would ask for it.
  const clip: Json = await mux.video.assets.create({
    inputs: [{ url: `mux://assets/${sourceId}`, ...range }],
    playback_policies: ['public'],
    master_access: 'temporary',
    ...extra,
  });
  expect(clip).toMatchObject({ status: 'preparing', ingest_type: 'on_demand_clip', source_asset_id: sourceId });
  expect(clip.playback_ids).toEqual([{ id: expect.any(String), policy: 'public' }]);
  const ready = await api.waitForStatus(clip.id, ['ready', 'errored'], 90_000);
  expect(ready.status, JSON.stringify(ready.errors)).toBe('ready');
  return ready;
};

/** The clip's frames match the source's frames `first`…`last` (± 1 frame), and its audio runs unbroken alongside. */
const expectCut = async (file: string, { first, last }: { first: number; last: number }) => {
  const frames = await decodeFrames(file, dir);
  expect(Math.abs(closestFrame(frames[0]!, sourceFrames) - first), 'first frame').toBeLessThanOrEqual(1);
  expect(Math.abs(closestFrame(frames.at(-1)!, sourceFrames) - last), 'last frame').toBeLessThanOrEqual(1);
  expect(Math.abs(frames.length - (last - first + 1)), 'frame count').toBeLessThanOrEqual(1);
  const probed = await probeStreams(file);
  const video = probed.streams.find((stream) => stream.codec_type === 'video');
  const audio = probed.streams.find((stream) => stream.codec_type === 'audio');
  expect(Math.abs(Number(audio?.duration) - Number(video?.duration)), 'audio and video durations').toBeLessThanOrEqual(FRAME + 0.03);
  const levels = await audioWindowLevels(file, dir);
  const inner = levels.slice(3, -3);
  const typical = [...inner].sort((a, b) => a - b)[Math.floor(inner.length / 2)]!;
  expect(typical).toBeGreaterThan(0.05);
  expect(Math.min(...inner), 'no gap in the audio').toBeGreaterThan(typical * 0.7);
};

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dir = await makeTempDir('clips');
  await makeSource(path.join(dir, 'source.mp4'), { seconds: 6 });
  await makeSource(path.join(dir, 'audio.m4a'), { seconds: 4, audioOnly: true });
  sourceFrames = await decodeFrames(path.join(dir, 'source.mp4'), dir);
  expect(sourceFrames.length).toBe(6 * FRAME_RATE);
  media = await MediaServer.start({ roots: [dir] });
  server = await startKeyframe({ label: 'clips' });
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  source = await api.createAsset({ inputs: [{ url: media.fileUrl('source.mp4') }], playback_policies: ['public'], max_resolution_tier: '1440p' });
  audioSource = await api.createAsset({ inputs: [{ url: media.fileUrl('audio.m4a') }], playback_policies: ['public'] });
  for (const asset of [source, audioSource]) expect((await api.waitForStatus(asset.id)).status).toBe('ready');
});

test.afterAll(async () => {
  await disposeKeyframe(server);
  await media?.close();
  if (dir) await removeDir(dir);
});

test('a clip is frame-accurate at both ends with its audio in sync; a clip of the clip too', async () => {
  test.setTimeout(240_000);
  // Frames 38…109 (end_time 4.4 s is frame 110's start); the source's keyframes are at 0, 2, 4 s.
  const clip = await createClip(source.id, { start_time: 1.52, end_time: 4.4 });
  expect(clip.max_resolution_tier).toBe('1440p');
  expect(Math.abs(clip.duration - 2.88)).toBeLessThanOrEqual(FRAME);
  await expectCut(await masterFile(clip.id, 'clip.mp4'), { first: 38, last: 109 });

  const ofClip = await createClip(clip.id, { start_time: 0.4, end_time: 1.6 }, { max_resolution_tier: '1080p' });
  expect(ofClip.max_resolution_tier).toBe('1080p');
  expect(Math.abs(ofClip.duration - 1.2)).toBeLessThanOrEqual(FRAME);
  await expectCut(await masterFile(ofClip.id, 'clip-of-clip.mp4'), { first: 48, last: 77 });
});

test('a clip is plus (smart), from a basic source and when basic is asked for; premium only when the clip asks for it', async () => {
  test.setTimeout(300_000);
  const basic = await api.createAsset({ inputs: [{ url: media.fileUrl('source.mp4') }], playback_policies: ['public'], video_quality: 'basic' });
  expect((await api.waitForStatus(basic.id)).encoding_tier).toBe('baseline');
  const clip = await createClip(basic.id, { start_time: 1, end_time: 3 });
  expect(clip).toMatchObject({ video_quality: 'plus', encoding_tier: 'smart' });
  const askedBasic = await createClip(basic.id, { start_time: 1, end_time: 3 }, { video_quality: 'basic' });
  expect(askedBasic).toMatchObject({ video_quality: 'plus', encoding_tier: 'smart' });
  const askedPremium = await createClip(basic.id, { start_time: 1, end_time: 3 }, { video_quality: 'premium' });
  expect(askedPremium).toMatchObject({ video_quality: 'premium', encoding_tier: 'premium' });
  const askedPremiumTier = await createClip(basic.id, { start_time: 1, end_time: 3 }, { encoding_tier: 'premium' });
  expect(askedPremiumTier).toMatchObject({ video_quality: 'premium', encoding_tier: 'premium' });
});

test('start_time alone runs to the end of the source; an audio-only source gives an audio-only clip', async () => {
  test.setTimeout(180_000);
  const tail = await createClip(source.id, { start_time: 5 });
  expect(Math.abs(tail.duration - 1)).toBeLessThanOrEqual(FRAME);
  await expectCut(await masterFile(tail.id, 'tail.mp4'), { first: 125, last: 149 });

  const audioClip = await createClip(audioSource.id, { start_time: 0.5, end_time: 2 });
  expect(audioClip.tracks.map((track: Json) => track.type)).toEqual(['audio']);
  expect(Math.abs(audioClip.duration - 1.5)).toBeLessThan(0.05);
});

test('400 invalid_parameters: unknown, deleted or unready source, range outside the source, start/end on a URL', async () => {
  const create = (body: Json) => api.post('/video/v1/assets', { playback_policies: ['public'], ...body });
  const clipOf = (id: string, range: Json = {}) => create({ inputs: [{ url: `mux://assets/${id}`, ...range }] });

  expectApiError(await clipOf('NoSuchAsset00000000000000000000'), 400, 'invalid_parameters', /does not exist/);
  expectApiError(await clipOf(source.id, { start_time: 6.5 }), 400, 'invalid_parameters', /start_time/);
  expectApiError(await clipOf(source.id, { start_time: 1, end_time: 7 }), 400, 'invalid_parameters', /end_time/);
  expectApiError(await clipOf(source.id, { start_time: 2, end_time: 1 }), 400, 'invalid_parameters', /end_time/);
  expectApiError(await clipOf(source.id, { start_time: 1, end_time: 1.2 }), 400, 'invalid_parameters', /0\.5/);
  expectApiError(
    await create({ inputs: [{ url: media.fileUrl('source.mp4'), start_time: 1 }] }),
    400,
    'invalid_parameters',
    /only apply/,
  );

  const stuck = await api.createAsset({ inputs: [{ url: media.slowUrl('source.mp4') }], playback_policies: ['public'] });
  expectApiError(await clipOf(stuck.id), 400, 'invalid_parameters', /not ready/);
  expect((await api.delete(`/video/v1/assets/${stuck.id}`)).status).toBe(204);
  expectApiError(await clipOf(stuck.id), 400, 'invalid_parameters', /does not exist/);
});
