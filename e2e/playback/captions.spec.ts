import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Mux from '@mux/mux-node';
import type { TestInfo } from '@playwright/test';
import { makeSpeechClip, type SpeechClip } from '../../harness/speech-fixtures';
import { wordErrorRate, type WordErrorRate } from '../../harness/word-error-rate';
import { niceOf } from '../../lib/media/test-support/scheduling';
import { textTrackFilePath } from '../../lib/storage/asset-files';
import { Api, type Json } from '../support/api';
import { assetDirsOf, dataDirsOf, isCluster, type KeyframeServer } from '../support/keyframe-server';
import { ffmpeg, ffprobe } from '../support/media-probe';
import { MediaServer } from '../../harness/media-server';
import { watchProcesses } from '../../harness/processes';
import { WebhookReceiver } from '../../harness/webhook-receiver';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';

// Auto-generated captions end to end: speech synthesised at test time (festival's HTS voice, clear;
// espeak-ng, robotic) with four seconds of silence in the middle, muxed with a test-pattern video,
// ingested with `generated_subtitles` or captioned later through generate-subtitles (@mux/mux-node).
// The stored WebVTT is checked strictly (and by ffmpeg), the cue rules and the silence are checked
// cue by cue, and the transcript is scored against the script (word error rate).

test.describe.configure({ mode: 'serial' });

const READY_TIMEOUT_MS = 150_000;
const MAX_WER_CLEAR_VOICE = 0.3;

let server: KeyframeServer;
let api: Api;
let mux: Mux;
let receiver: WebhookReceiver;
let speechMedia: MediaServer;
let scratch: string;
let clear: SpeechClip;
let robotic: SpeechClip;

test.beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'kf-captions-'));
  [clear, robotic] = await Promise.all([
    makeSpeechClip({ voice: 'festival-hts', outputPath: path.join(scratch, 'speech-festival-hts.mp4') }),
    makeSpeechClip({ voice: 'espeak-ng', outputPath: path.join(scratch, 'speech-espeak-ng.mp4') }),
  ]);
  speechMedia = await MediaServer.start({ roots: [scratch] });
  server = await startKeyframe({ label: 'captions' });
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  receiver = await (await WebhookReceiver.start()).subscribeTo(server);
});

test.afterAll(async () => {
  await receiver?.close();
  await disposeKeyframe(server);
  await speechMedia?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const urlOf = (clip: SpeechClip) => speechMedia.fileUrl(path.basename(clip.path));
const eventsOf = (objectId: string) => receiver.accepted(objectId).map((entry) => entry.event.type as string);
const textTracksOf = (asset: Json): Json[] => (asset.tracks ?? []).filter((track: Json) => track.type === 'text');

type ParsedCue = { start: number; end: number; lines: string[] };

const seconds = (stamp: string) => {
  const [h, m, s] = stamp.split(':');
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
};

// Strict: the signature line, then blocks separated by one blank line, each an optional
// identifier, a timing line with HH:MM:SS.mmm stamps, and one or more payload lines.
const parseWebVttStrictly = (text: string): ParsedCue[] => {
  expect(text.endsWith('\n'), 'ends with a newline').toBe(true);
  const [header, ...blocks] = text.replace(/\n$/, '').split('\n\n');
  expect(header).toBe('WEBVTT');
  return blocks.map((block) => {
    const lines = block.split('\n');
    const timingAt = lines.findIndex((line) => line.includes('-->'));
    expect(timingAt, block).toBeGreaterThanOrEqual(0);
    expect(timingAt, block).toBeLessThanOrEqual(1);
    const timing = /^(\d{2}:\d{2}:\d{2}\.\d{3}) --> (\d{2}:\d{2}:\d{2}\.\d{3})$/.exec(lines[timingAt]!);
    expect(timing, lines[timingAt]).not.toBeNull();
    const payload = lines.slice(timingAt + 1);
    expect(payload.length, block).toBeGreaterThan(0);
    for (const line of payload) expect(line.trim(), block).not.toBe('');
    return { start: seconds(timing![1]!), end: seconds(timing![2]!), lines: payload };
  });
};

/** The track's stored files, from whichever node's DATA_DIR has them. */
const storedTrackFile = async (assetId: string, trackId: string, extension: 'vtt' | 'txt') => {
  const found = dataDirsOf(server)
    .map((dataDir) => textTrackFilePath(dataDir, assetId, trackId, extension))
    .find((file) => existsSync(file));
  expect(found, `track.${extension} of ${trackId} stored`).toBeDefined();
  return { file: found!, text: await readFile(found!, 'utf8') };
};

/** Checks the stored WebVTT and transcript of a ready track; returns its cues and what they say. */
const checkStoredCaptions = async (assetId: string, trackId: string, clip: SpeechClip) => {
  const vtt = await storedTrackFile(assetId, trackId, 'vtt');
  const cues = parseWebVttStrictly(vtt.text);
  expect(cues.length).toBeGreaterThan(0);

  // ffmpeg decodes it as WebVTT without a complaint and writes the same cues back (its reader
  // skips what it cannot parse, so the count is what shows a malformed cue).
  const decoded = await ffmpeg(['-v', 'error', '-f', 'webvtt', '-i', vtt.file, '-map', '0:s', '-c:s', 'webvtt', '-f', 'webvtt', '-']);
  expect(decoded.code, decoded.stderr).toBe(0);
  expect(decoded.stderr.trim()).toBe('');
  const rewritten = decoded.stdout.trim().split('\n\n').slice(1);
  expect(rewritten.map((block) => block.split('\n').slice(1))).toEqual(cues.map((cue) => cue.lines));
  const packets = await ffprobe(['-v', 'error', '-f', 'webvtt', '-show_entries', 'packet=pts_time', '-of', 'csv=p=0', vtt.file]);
  expect(packets.code, packets.stderr).toBe(0);
  expect(packets.stdout.trim().split('\n').filter(Boolean)).toHaveLength(cues.length);

  // The cue rules: at most two lines of at most 42 characters, 1 to 7 s on screen, in order.
  cues.forEach((cue, index) => {
    const label = `cue ${index} ${cue.start}–${cue.end}: ${cue.lines.join(' / ')}`;
    expect(cue.lines.length, label).toBeLessThanOrEqual(2);
    for (const line of cue.lines) expect([...line].length, label).toBeLessThanOrEqual(42);
    expect(cue.end - cue.start, label).toBeGreaterThanOrEqual(1 - 1e-6);
    expect(cue.end - cue.start, label).toBeLessThanOrEqual(7 + 1e-6);
    expect(cue.start, label).toBeGreaterThanOrEqual(index === 0 ? 0 : cues[index - 1]!.end);
    expect(cue.end, label).toBeLessThanOrEqual(clip.durationSeconds + 0.05);
  });

  // Nothing is shown during the silence: a cue may stay up into it by at most the 1 s minimum
  // display time, and the next starts with the speech (0.5 s allows for where the engine puts
  // the first word's edge). So no cue spans the pause either.
  const quietFrom = clip.silence.start + 1;
  const quietTo = clip.silence.end - 0.5;
  for (const cue of cues) {
    expect(cue.end <= quietFrom || cue.start >= quietTo, `cue ${cue.start}–${cue.end} in the silence ${clip.silence.start}–${clip.silence.end}`).toBe(true);
  }
  expect(cues.some((cue) => cue.end <= clip.silence.start + 1)).toBe(true);
  expect(cues.some((cue) => cue.start >= clip.silence.end - 0.5)).toBe(true);

  // The transcript: one line per cue, the same words.
  const txt = await storedTrackFile(assetId, trackId, 'txt');
  expect(txt.text.trimEnd().split('\n')).toEqual(cues.map((cue) => cue.lines.join(' ')));
  return { cues, transcript: txt.text };
};

const reportWer = async (testInfo: TestInfo, voice: string, clip: SpeechClip, transcript: string): Promise<WordErrorRate> => {
  const score = wordErrorRate(clip.reference, transcript);
  const summary = `${voice}: WER ${(score.rate * 100).toFixed(1)} % (${score.substitutions} substituted, ${score.deletions} deleted, ${score.insertions} inserted of ${score.referenceWords} words)`;
  testInfo.annotations.push({ type: 'word error rate', description: summary });
  await testInfo.attach(`wer-${voice}.json`, { body: JSON.stringify({ ...score, reference: clip.reference, transcript }, null, 2), contentType: 'application/json' });
  // The transcript itself is only attached: a low-accuracy engine can mishear speech as anything.
  console.log(`[captions] ${summary}`);
  return score;
};

test('create with generated_subtitles: preparing at ready, then ready with webhooks in order; valid WebVTT within the cue rules, silent during the silence, WER ≤ 30 % on the clear voice', async ({}, testInfo) => {
  // The engine is watched while it runs: it must run at the lowest CPU priority.
  const engines = new Map<number, number>();
  const watch = isCluster()
    ? null
    : watchProcesses(server.pid, (entry) => {
        if (!/(^|\/)pocketsphinx_continuous$/.test(entry.argv[0] ?? '')) return false;
        try {
          engines.set(entry.pid, niceOf(entry.pid));
        } catch {
          // exited meanwhile
        }
        return true;
      });

  const created = await mux.video.assets.create({
    inputs: [{ url: urlOf(clear), generated_subtitles: [{ language_code: 'en', name: 'English (generated)' }] }],
    playback_policies: ['public'],
  });
  const assetReady = await receiver.waitForEvent('video.asset.ready', created.id, { timeoutMs: READY_TIMEOUT_MS });
  const [generated] = textTracksOf(assetReady.event.data);
  expect(generated).toMatchObject({ type: 'text', text_type: 'subtitles', text_source: 'generated_vod', status: 'preparing', language_code: 'en', name: 'English (generated)' });
  const trackId = generated.id as string;
  const primaryAudio = (assetReady.event.data.tracks as Json[]).find((track) => track.type === 'audio' && track.primary);
  expect(primaryAudio).toBeDefined();

  const ready = await receiver.waitForEvent('video.asset.track.ready', trackId, { timeoutMs: READY_TIMEOUT_MS });
  await watch?.stop();
  expect(ready.event.data).toMatchObject({ id: trackId, asset_id: created.id, status: 'ready', text_source: 'generated_vod', language_code: 'en' });
  expect(eventsOf(trackId)).toEqual(['video.asset.track.created', 'video.asset.track.ready']);
  const order = receiver.accepted().map((entry) => `${entry.event.type} ${entry.event.object.id}`);
  expect(order.indexOf(`video.asset.track.created ${trackId}`)).toBeGreaterThan(order.indexOf(`video.asset.ready ${created.id}`));

  const asset = await mux.video.assets.retrieve(created.id);
  expect(asset.status).toBe('ready');
  expect(asset.tracks?.find((track) => track.id === trackId)).toMatchObject({ status: 'ready', text_source: 'generated_vod', language_code: 'en' });

  if (watch) {
    expect(engines.size, 'the engine was seen running').toBeGreaterThan(0);
    for (const nice of engines.values()) expect(nice).toBe(19);
  }

  const { transcript } = await checkStoredCaptions(created.id, trackId, clear);
  const score = await reportWer(testInfo, 'festival-hts', clear, transcript);
  expect(score.rate, 'word error rate of the clear voice').toBeLessThanOrEqual(MAX_WER_CLEAR_VOICE);
});

test('generate-subtitles on an audio track: "auto" is transcribed as English and says so; "fr" errors naming the supported languages; the asset is unaffected', async ({}, testInfo) => {
  const created = await mux.video.assets.create({ inputs: [{ url: urlOf(robotic) }], playback_policies: ['public'] });
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], READY_TIMEOUT_MS);
  expect(asset.status).toBe('ready');
  const audio = (asset.tracks as Json[]).find((track) => track.type === 'audio' && track.primary);
  expect(textTracksOf(asset)).toEqual([]);

  const requested = await mux.video.assets.generateSubtitles(created.id, audio.id, {
    generated_subtitles: [
      { language_code: 'auto', name: 'Detected (generated)' },
      { language_code: 'fr', name: 'Français (généré)' },
    ],
  });
  expect(requested).toHaveLength(2);
  for (const track of requested) expect(track).toMatchObject({ type: 'text', text_source: 'generated_vod', status: 'preparing' });
  const [auto, french] = requested.map((track) => track.id!);

  const errored = await receiver.waitForEvent('video.asset.track.errored', french!, { timeoutMs: READY_TIMEOUT_MS });
  expect(errored.event.data).toMatchObject({ id: french, status: 'errored', language_code: 'fr', error: { type: 'invalid_input' } });
  const message = (errored.event.data.error.messages as string[]).join(' ');
  expect(message).toContain('English');
  expect(message).toMatch(/"en".*"auto"/);
  expect(message).toContain('French ("fr") is not supported');
  expect(eventsOf(french!)).toEqual(['video.asset.track.created', 'video.asset.track.errored']);

  const ready = await receiver.waitForEvent('video.asset.track.ready', auto!, { timeoutMs: READY_TIMEOUT_MS });
  expect(ready.event.data).toMatchObject({ id: auto, status: 'ready', language_code: 'en', name: 'Detected (generated)' });
  expect(eventsOf(auto!)).toEqual(['video.asset.track.created', 'video.asset.track.ready']);

  const after = await mux.video.assets.retrieve(created.id);
  expect(after.status).toBe('ready');
  expect(after.errors).toBeUndefined();
  expect(after.tracks?.filter((track) => track.type === 'text').map((track) => [track.id, track.status])).toEqual([
    [auto, 'ready'],
    [french, 'errored'],
  ]);
  expect(eventsOf(created.id)).not.toContain('video.asset.errored');

  // The robotic voice is far harder for this engine: its score is reported, not judged.
  const { transcript } = await checkStoredCaptions(created.id, auto!, robotic);
  await reportWer(testInfo, 'espeak-ng', robotic, transcript);
});

test('video_quality "basic": generated_subtitles refused with 400 on create and on generate-subtitles', async ({ media, fixtures }) => {
  const url = media.fileUrl(fixtures.file('videoSmall'));
  const refused = await api.post('/video/v1/assets', {
    inputs: [{ url, generated_subtitles: [{ language_code: 'en' }] }],
    playback_policies: ['public'],
    video_quality: 'basic',
  });
  expect(refused.status, refused.text).toBe(400);
  expect(refused.json.error.messages.join(' ')).toContain('generated_subtitles');

  const basic = await api.createAsset({ inputs: [{ url }], playback_policies: ['public'], video_quality: 'basic' });
  const asset = await api.waitForStatus(basic.id, ['ready', 'errored'], READY_TIMEOUT_MS);
  expect(asset.status).toBe('ready');
  const audio = (asset.tracks as Json[]).find((track) => track.type === 'audio');
  const generate = await api.post(`/video/v1/assets/${basic.id}/tracks/${audio.id}/generate-subtitles`, { generated_subtitles: [{ language_code: 'en' }] });
  expect(generate.status, generate.text).toBe(400);
  expect(textTracksOf((await mux.video.assets.retrieve(basic.id)) as Json)).toEqual([]);
});

// Whether the process has the file open (its name contains `fragment`).
const hasOpen = (pid: number, fragment: string): boolean => {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).includes(fragment);
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
};

test('deleting the asset while its captions are generated stops the engine and leaves no files', async () => {
  test.skip(isCluster(), 'watches the engine process under the one server');
  // Twenty times the clear clip (11 min): over a minute of CPU for the engine, so once it is
  // reading the audio only the cancellation can end it within the wait below.
  const long = path.join(scratch, 'speech-festival-hts-x20.mp4');
  const looped = await ffmpeg(['-v', 'error', '-y', '-stream_loop', '19', '-i', clear.path, '-c', 'copy', long]);
  expect(looped.code, looped.stderr).toBe(0);
  const seen = watchProcesses(server.pid, (entry) => /(^|\/)pocketsphinx_continuous$/.test(entry.argv[0] ?? ''));
  const created = await mux.video.assets.create({
    inputs: [{ url: speechMedia.fileUrl(path.basename(long)), generated_subtitles: [{ language_code: 'en' }] }],
    playback_policies: ['public'],
  });
  await expect.poll(() => seen.seen.size, { timeout: READY_TIMEOUT_MS, intervals: [50] }).toBeGreaterThan(0);
  await seen.stop();
  const engine = [...seen.seen.keys()][0]!;
  await expect.poll(() => hasOpen(engine, '.speech-'), { timeout: 30_000, intervals: [50] }).toBe(true);
  await mux.video.assets.delete(created.id);
  await expect.poll(() => existsSync(`/proc/${engine}`), { timeout: 10_000 }).toBe(false);
  await expect.poll(() => assetDirsOf(server, created.id).some((dir) => existsSync(dir)), { timeout: 10_000 }).toBe(false);
  const trackEvents = receiver.accepted().filter((entry) => entry.event.data?.asset_id === created.id && entry.event.type === 'video.asset.track.ready');
  expect(trackEvents).toEqual([]);
});

test('the engine not installed: the generated track errors saying what to install; the asset is ready', async ({ media, fixtures }) => {
  const bare = await startKeyframe({ label: 'captions-no-engine', env: { POCKETSPHINX_PATH: '/nonexistent/pocketsphinx_continuous' } });
  try {
    const bareApi = new Api(bare.baseUrl, await bare.createToken());
    const created = await bareApi.createAsset({
      inputs: [{ url: media.fileUrl(fixtures.file('videoSmall')), generated_subtitles: [{ language_code: 'en' }] }],
      playback_policies: ['public'],
    });
    expect((await bareApi.waitForStatus(created.id, ['ready', 'errored'], READY_TIMEOUT_MS)).status).toBe('ready');
    await expect
      .poll(async () => textTracksOf((await bareApi.get(`/video/v1/assets/${created.id}`)).json.data)[0]?.status, { timeout: 60_000, intervals: [1_100] })
      .toBe('errored');
    const asset = (await bareApi.get(`/video/v1/assets/${created.id}`)).json.data;
    expect(asset.status).toBe('ready');
    expect(textTracksOf(asset)[0].error.messages.join(' ')).toMatch(/install the Debian packages pocketsphinx and pocketsphinx-en-us/);
  } finally {
    await disposeKeyframe(bare);
  }
});
