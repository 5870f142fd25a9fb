import { existsSync } from 'node:fs';
import path from 'node:path';
import type Mux from '@mux/mux-node';
import { Api, type Json } from '../support/api';
import { httpGet, parseMediaPlaylist, parseMultivariant, type HttpResult, type MediaPlaylist, type Rendition } from '../support/hls';
import { assetDirsOf, getFreePort, type KeyframeServer } from '../support/keyframe-server';
import {
  ENGLISH_STORED_VTT,
  ENGLISH_TRANSCRIPT,
  FRENCH_STORED_VTT,
  FRENCH_TRANSCRIPT,
  startSubtitleServer,
} from '../support/text-tracks';
import { WebhookReceiver } from '../../harness/webhook-receiver';
import { disposeKeyframe, expect, muxClient, startKeyframe, test } from '../support/test';

// Text tracks end to end over HTTP: subtitle files added on create and through @mux/mux-node's
// track methods, fetched by the server from a URL, stored, listed in the multivariant playlist's
// SUBTITLES group, served as whole files and as a segmented WebVTT rendition; bad files error
// their track only; webhooks in order; signed playback, instant clips, audio-only assets; both tiers.

test.describe.configure({ mode: 'serial' });

let server: KeyframeServer;
let api: Api;
let mux: Mux;
let receiver: WebhookReceiver;
let subtitles: Awaited<ReturnType<typeof startSubtitleServer>>;

test.beforeAll(async ({ fixtures }) => {
  server = await startKeyframe({ label: 'text-tracks' });
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  receiver = await (await WebhookReceiver.start()).subscribeTo(server);
  subtitles = await startSubtitleServer([fixtures.dir]);
});

test.afterAll(async () => {
  await receiver?.close();
  await subtitles?.close();
  await disposeKeyframe(server);
});

const TIMESTAMP_MAP = 'X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000';

const eventsOf = (trackId: string) => receiver.accepted(trackId).map((entry) => entry.event.type as string);

const waitForTrack = async (trackId: string, outcome: 'ready' | 'errored') =>
  (await receiver.waitForEvent(`video.asset.track.${outcome}`, trackId, { timeoutMs: 60_000 })).event.data as Json;

const readyAsset = async (body: Json) => {
  const created = await api.createAsset(body);
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 90_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  return asset;
};

const textTracksOf = (asset: Json): Json[] => asset.tracks.filter((track: Json) => track.type === 'text');

const multivariant = async (playbackId: string, query = '') => {
  const url = server.url(`/${playbackId}.m3u8${query ? `?${query}` : ''}`);
  const response = await httpGet(url);
  expect(response.status, response.text).toBe(200);
  return parseMultivariant(response.text, url);
};

const subtitleMedia = (playlist: { media: Rendition[] }) => playlist.media.filter((media) => media.attributes.TYPE === 'SUBTITLES');

const loadMediaPlaylist = async (url: string): Promise<MediaPlaylist> => {
  const response = await httpGet(url);
  expect(response.status, `${url}: ${response.text}`).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
  return parseMediaPlaylist(response.text, url);
};

const expectNotFound = (response: HttpResult, message: string) => {
  expect(response.status, response.text).toBe(404);
  expect(JSON.parse(response.text)).toEqual({ error: { type: 'not_found', messages: [message] } });
};

const textFile = (playbackId: string, trackId: string, extension: 'vtt' | 'txt', query = '') =>
  httpGet(server.url(`/${playbackId}/text/${trackId}.${extension}${query ? `?${query}` : ''}`));

const vttCueTexts = (segment: string) =>
  segment
    .trimEnd()
    .split('\n\n')
    .slice(1)
    .map((block) => block.split('\n').at(-1) ?? '');

let publicAsset: { id: string; playbackId: string; english: string; french: string };

test('on create: WebVTT and SRT inputs become ready text tracks, with webhooks in order', async ({ fixtures }) => {
  const created = await mux.video.assets.create({
    inputs: [
      { url: subtitles.media.fileUrl(fixtures.file('video720p')) },
      { url: subtitles.url('englishVtt'), type: 'text', text_type: 'subtitles', language_code: 'en', name: 'English', closed_captions: true },
      { url: subtitles.url('frenchSrt'), type: 'text', text_type: 'subtitles', language_code: 'fr', passthrough: 'fr-file' },
    ],
    playback_policies: ['public'],
  });
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 90_000);
  expect(asset.status).toBe('ready');
  const [english, french] = textTracksOf(asset);
  expect(english).toMatchObject({ name: 'English', language_code: 'en', closed_captions: true, text_type: 'subtitles', text_source: 'uploaded' });
  expect(french).toMatchObject({ name: 'French', language_code: 'fr', closed_captions: false, passthrough: 'fr-file' });

  for (const track of [english, french]) {
    const ready = await waitForTrack(track.id, 'ready');
    expect(ready).toMatchObject({ id: track.id, asset_id: created.id, type: 'text', status: 'ready', name: track.name });
    expect(eventsOf(track.id)).toEqual(['video.asset.track.created', 'video.asset.track.ready']);
  }
  const order = receiver.accepted().map((entry) => `${entry.event.type} ${entry.event.object.id}`);
  expect(order.indexOf(`video.asset.track.created ${english.id}`)).toBeGreaterThan(order.indexOf(`video.asset.ready ${created.id}`));

  const retrieved = await mux.video.assets.retrieve(created.id);
  expect(retrieved.tracks?.filter((track) => track.type === 'text').map((track) => [track.name, track.status])).toEqual([
    ['English', 'ready'],
    ['French', 'ready'],
  ]);
  publicAsset = { id: created.id, playbackId: asset.playback_ids[0].id, english: english.id, french: french.id };
});

test('the multivariant playlist lists the SUBTITLES group; default_subtitles_lang picks the closest track', async () => {
  const { playbackId } = publicAsset;
  const playlist = await multivariant(playbackId);
  const media = subtitleMedia(playlist);
  expect(media.map((entry) => entry.attributes)).toEqual([
    {
      TYPE: 'SUBTITLES',
      'GROUP-ID': 'subs',
      CHARACTERISTICS: 'public.accessibility.transcribes-spoken-dialog,public.accessibility.describes-music-and-sound',
      NAME: 'English',
      AUTOSELECT: 'YES',
      DEFAULT: 'NO',
      FORCED: 'NO',
      LANGUAGE: 'en',
      URI: `${playbackId}/subtitles-${publicAsset.english}.m3u8`,
    },
    {
      TYPE: 'SUBTITLES',
      'GROUP-ID': 'subs',
      NAME: 'French',
      AUTOSELECT: 'YES',
      DEFAULT: 'NO',
      FORCED: 'NO',
      LANGUAGE: 'fr',
      URI: `${playbackId}/subtitles-${publicAsset.french}.m3u8`,
    },
  ]);
  expect(playlist.variants.length).toBeGreaterThan(0);
  for (const variant of playlist.variants) expect(variant.attributes.SUBTITLES).toBe('subs');

  const withDefault = subtitleMedia(await multivariant(playbackId, 'default_subtitles_lang=fr-CA'));
  expect(withDefault.map((entry) => [entry.attributes.NAME, entry.attributes.DEFAULT])).toEqual([
    ['English', 'NO'],
    ['French', 'YES'],
  ]);
});

test('/text/{id}.vtt and .txt: the normalised file and its transcript, with playback headers', async () => {
  const { playbackId, english, french } = publicAsset;
  const vtt = await textFile(playbackId, english, 'vtt');
  expect(vtt.status).toBe(200);
  expect(vtt.text).toBe(ENGLISH_STORED_VTT);
  expect(vtt.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
  expect(vtt.headers.get('access-control-allow-origin')).toBe('*');
  expect(vtt.headers.get('cache-control')).toBe('public, max-age=3600');
  expect(vtt.headers.get('etag')).toBeTruthy();
  const txt = await textFile(playbackId, english, 'txt');
  expect(txt.text).toBe(ENGLISH_TRANSCRIPT);
  expect(txt.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect((await textFile(playbackId, french, 'vtt')).text).toBe(FRENCH_STORED_VTT);
  expect((await textFile(playbackId, french, 'txt')).text).toBe(FRENCH_TRANSCRIPT);
  // A conditional request is answered like any stored playback file.
  const again = await httpGet(server.url(`/${playbackId}/text/${english}.vtt`), { headers: { 'if-none-match': vtt.headers.get('etag')! } });
  expect(again.status).toBe(304);
  expectNotFound(await textFile(playbackId, 'nosuchtrack0000', 'vtt'), 'Text track not found');
});

test('the subtitles rendition: WebVTT segments on the video segment boundaries, every overlapping cue in each', async () => {
  const { playbackId, english } = publicAsset;
  const playlist = await multivariant(playbackId);
  const subtitlesUrl = subtitleMedia(playlist).find((entry) => entry.attributes.NAME === 'English')!.url!;
  const rendition = await loadMediaPlaylist(subtitlesUrl);
  const video = await loadMediaPlaylist(playlist.variants[0]!.url);
  expect(rendition.map).toBeUndefined();
  expect(rendition.endList).toBe(true);
  expect(rendition.playlistType).toBe('VOD');
  expect(rendition.segments.map((segment) => segment.duration)).toEqual(video.segments.map((segment) => segment.duration));
  expect(rendition.segments.map((segment) => segment.uri)).toEqual(video.segments.map((_, index) => `subtitles-${english}/${index}.vtt`));

  // The 4 s source: segments [0, 2) and [2, 4); the last one keeps cues past the end.
  const [first, second] = await Promise.all(rendition.segments.map((segment) => httpGet(segment.url)));
  expect(first!.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
  expect(first!.text).toBe(
    `WEBVTT\n${TIMESTAMP_MAP}\n\nhello\n00:00:00.400 --> 00:00:01.400 line:0 align:start\nHello <i>there</i>\n\n00:00:01.800 --> 00:00:02.400\nAcross the first boundary\n`,
  );
  expect(second!.text.split('\n').slice(0, 2)).toEqual(['WEBVTT', TIMESTAMP_MAP]);
  expect(vttCueTexts(second!.text)).toEqual(['Across the first boundary', 'Past the first boundary', 'In the middle', 'Past the third boundary']);
  expectNotFound(await httpGet(server.url(`/${playbackId}/subtitles-${english}/${rendition.segments.length}.vtt`)), 'Segment not found');
});

test('instant clips: the subtitles playlist lists the same segments as the clipped video', async () => {
  const { playbackId, english } = publicAsset;
  const clipped = await multivariant(playbackId, 'asset_start_time=2.5');
  const subtitlesMedia = subtitleMedia(clipped).find((entry) => entry.attributes.NAME === 'English')!;
  expect(subtitlesMedia.uri).toBe(`${playbackId}/subtitles-${english}.m3u8?asset_start_time=2.5`);
  const rendition = await loadMediaPlaylist(subtitlesMedia.url!);
  const video = await loadMediaPlaylist(clipped.variants[0]!.url);
  expect(video.segments.map((segment) => path.basename(segment.uri))).toEqual(['1.m4s']);
  expect(rendition.segments.map((segment) => segment.uri)).toEqual([`subtitles-${english}/1.vtt`]);
  expect(rendition.segments.map((segment) => segment.duration)).toEqual(video.segments.map((segment) => segment.duration));
});

test('through @mux/mux-node: createTrack, updateTrack renames it in the playlist, deleteTrack removes it everywhere', async () => {
  const { id: assetId, playbackId } = publicAsset;
  const track = await mux.video.assets.createTrack(assetId, {
    url: subtitles.url('englishVtt'),
    type: 'text',
    text_type: 'subtitles',
    language_code: 'en-US',
    name: 'English (US)',
    passthrough: 'added later',
  });
  expect(track).toMatchObject({ type: 'text', status: 'preparing', name: 'English (US)', language_code: 'en-US', passthrough: 'added later' });
  await waitForTrack(track.id!, 'ready');
  expect(eventsOf(track.id!)).toEqual(['video.asset.track.created', 'video.asset.track.ready']);
  expect(subtitleMedia(await multivariant(playbackId)).map((entry) => entry.attributes.NAME)).toEqual(['English', 'French', 'English (US)']);
  expect((await textFile(playbackId, track.id!, 'vtt')).text).toBe(ENGLISH_STORED_VTT);
  // `en` prefers the exact tag over `en-US`.
  const defaults = subtitleMedia(await multivariant(playbackId, 'default_subtitles_lang=en'));
  expect(defaults.filter((entry) => entry.attributes.DEFAULT === 'YES').map((entry) => entry.attributes.NAME)).toEqual(['English']);

  const renamed = await mux.video.assets.updateTrack(assetId, track.id!, { name: 'American English', closed_captions: true });
  expect(renamed).toMatchObject({ id: track.id, name: 'American English', closed_captions: true, status: 'ready' });
  const afterRename = subtitleMedia(await multivariant(playbackId)).find((entry) => entry.uri?.includes(track.id!));
  expect(afterRename?.attributes).toMatchObject({ NAME: 'American English', CHARACTERISTICS: expect.stringContaining('transcribes-spoken-dialog') });

  await mux.video.assets.deleteTrack(assetId, track.id!);
  await receiver.waitForEvent('video.asset.track.deleted', track.id!);
  expect(eventsOf(track.id!)).toEqual(['video.asset.track.created', 'video.asset.track.ready', 'video.asset.track.deleted']);
  expect(subtitleMedia(await multivariant(playbackId)).map((entry) => entry.attributes.NAME)).toEqual(['English', 'French']);
  expectNotFound(await textFile(playbackId, track.id!, 'vtt'), 'Text track not found');
  expectNotFound(await textFile(playbackId, track.id!, 'txt'), 'Text track not found');
  expectNotFound(await httpGet(server.url(`/${playbackId}/subtitles-${track.id}.m3u8`)), 'Rendition not found');
  expectNotFound(await httpGet(server.url(`/${playbackId}/subtitles-${track.id}/0.vtt`)), 'Rendition not found');
  for (const dir of assetDirsOf(server, assetId)) expect(existsSync(path.join(dir, 'tracks', track.id!))).toBe(false);
  expect((await mux.video.assets.retrieve(assetId)).tracks?.some((entry) => entry.id === track.id)).toBe(false);
});

test('basic tier: bad, empty, missing and unreachable files error only their track, with the reason; the asset stays ready and plays', async ({ fixtures }) => {
  // Nothing listens there: a refused connection may pass, so it is tried again before the track errors.
  const unreachable = `http://127.0.0.1:${await getFreePort()}/subtitles.vtt`;
  const inputs: Array<[string, string]> = [
    ['good', subtitles.url('frenchSrt')],
    ['malformed', subtitles.url('malformed')],
    ['no cues', subtitles.url('noCues')],
    ['zero bytes', subtitles.url('empty')],
    ['reversed', subtitles.url('reversed')],
    ['binary', subtitles.media.fileUrl(fixtures.file('corrupt'))],
    ['missing', subtitles.media.missingUrl],
    ['unreachable', unreachable],
  ];
  const asset = await readyAsset({
    inputs: [
      { url: subtitles.media.fileUrl(fixtures.file('videoSmall')) },
      ...inputs.map(([name, url]) => ({ url, type: 'text', text_type: 'subtitles', language_code: 'en', name })),
    ],
    playback_policies: ['public'],
    video_quality: 'basic',
  });
  expect(asset.encoding_tier).toBe('baseline');
  const tracks = new Map(textTracksOf(asset).map((track) => [track.name as string, track.id as string]));
  expect([...tracks.keys()]).toEqual(inputs.map(([name]) => name));
  await waitForTrack(tracks.get('good')!, 'ready');
  const reasons: Record<string, [string, RegExp]> = {
    malformed: ['invalid_input', /^The subtitle file cannot be used: line 6: "00:00:0x,000" in "00:00:03,000 --> 00:00:0x,000" is not a timestamp/],
    'no cues': ['invalid_input', /^The subtitle file cannot be used: the WebVTT file has no cues with text$/],
    'zero bytes': ['download_failed', /^The subtitle file could not be downloaded: the server sent an empty file$/],
    reversed: ['invalid_input', /^The subtitle file cannot be used: line 3: the cue ends \(00:00:01\.000\) before or when it starts \(00:00:02\.000\)$/],
    binary: ['invalid_input', /^The subtitle file cannot be used: the file is not text/],
    missing: ['download_failed', /^The subtitle file could not be downloaded: the server answered 404 Not Found$/],
    unreachable: ['failed_request', /^Preparing the track failed: The subtitle file could not be downloaded: could not connect to 127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/],
  };
  for (const [name, [type, message]] of Object.entries(reasons)) {
    const errored = await waitForTrack(tracks.get(name)!, 'errored');
    expect(errored, name).toMatchObject({ status: 'errored', error: { type, messages: [expect.stringMatching(message)] } });
    expect(eventsOf(tracks.get(name)!), name).toEqual(['video.asset.track.created', 'video.asset.track.errored']);
  }

  const after = await api.waitForStatus(asset.id, ['ready', 'errored']);
  expect(after.status).toBe('ready');
  expect(after.errors).toBeUndefined();
  expect(textTracksOf(after).map((track) => [track.name, track.status])).toEqual(inputs.map(([name]) => [name, name === 'good' ? 'ready' : 'errored']));
  const playbackId = asset.playback_ids[0].id as string;
  const playlist = await multivariant(playbackId);
  expect(subtitleMedia(playlist).map((entry) => entry.attributes.NAME)).toEqual(['good']);
  const video = await loadMediaPlaylist(playlist.variants[0]!.url);
  const segment = await httpGet(video.segments[0]!.url);
  expect(segment.status).toBe(200);
  expect(segment.body.length).toBeGreaterThan(1000);
  expectNotFound(await textFile(playbackId, tracks.get('malformed')!, 'vtt'), 'Text track not found');
  // Another asset's track is not found under this playback ID, and the other way round.
  expectNotFound(await textFile(playbackId, publicAsset.english, 'vtt'), 'Text track not found');
  expectNotFound(await textFile(publicAsset.playbackId, tracks.get('good')!, 'vtt'), 'Text track not found');
  expectNotFound(await httpGet(server.url(`/${playbackId}/subtitles-${publicAsset.english}.m3u8`)), 'Rendition not found');
});

test('signed playback: text files and the subtitles rendition need a token; playlist URLs carry the proof, clips included', async ({ fixtures }) => {
  const key = await mux.system.signingKeys.create();
  const asset = await readyAsset({
    inputs: [
      { url: subtitles.media.fileUrl(fixtures.file('video720p')) },
      { url: subtitles.url('englishVtt'), type: 'text', text_type: 'subtitles', language_code: 'en', name: 'English' },
    ],
    playback_policies: ['signed'],
  });
  const trackId = textTracksOf(asset)[0].id as string;
  await waitForTrack(trackId, 'ready');
  const playbackId = asset.playback_ids[0].id as string;
  const sign = (type: 'video' | 'thumbnail', params: Record<string, string> = {}) =>
    mux.jwt.signPlaybackId(playbackId, { keyId: key.id, keySecret: key.private_key!, type, params });

  for (const extension of ['vtt', 'txt'] as const) {
    const refused = await textFile(playbackId, trackId, extension);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).error.messages[0]).toMatch(/signed/);
    expect((await textFile(playbackId, trackId, extension, `token=${await sign('thumbnail')}`)).status).toBe(403);
  }
  const token = await sign('video');
  const vtt = await textFile(playbackId, trackId, 'vtt', `token=${token}`);
  expect(vtt.status).toBe(200);
  expect(vtt.text).toBe(ENGLISH_STORED_VTT);
  expect(vtt.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);

  const playlistUrl = server.url(`/${playbackId}.m3u8?token=${token}`);
  const playlist = parseMultivariant((await httpGet(playlistUrl)).text, playlistUrl);
  const media = subtitleMedia(playlist)[0]!;
  expect(media.uri).toMatch(new RegExp(`^${playbackId}/subtitles-${trackId}\\.m3u8\\?kfp=`));
  const rendition = await loadMediaPlaylist(media.url!);
  expect(rendition.segments.length).toBe(2);
  for (const segment of rendition.segments) {
    expect(segment.uri).toMatch(new RegExp(`^subtitles-${trackId}/\\d\\.vtt\\?kfp=`));
    expect((await httpGet(segment.url)).status).toBe(200);
  }
  expect((await httpGet(server.url(`/${playbackId}/subtitles-${trackId}.m3u8`))).status).toBe(403);
  expect((await httpGet(server.url(`/${playbackId}/subtitles-${trackId}/0.vtt`))).status).toBe(403);

  // A clip in the token: the proof carries it to the subtitles playlist.
  const clipToken = await sign('video', { asset_start_time: '2.5' });
  const clipUrl = server.url(`/${playbackId}.m3u8?token=${clipToken}`);
  const clipped = parseMultivariant((await httpGet(clipUrl)).text, clipUrl);
  const clippedRendition = await loadMediaPlaylist(subtitleMedia(clipped)[0]!.url!);
  expect(clippedRendition.segments.map((segment) => segment.uri.split('?')[0])).toEqual([`subtitles-${trackId}/1.vtt`]);
});

test('audio-only asset: the subtitles segments follow the audio segments', async ({ fixtures }) => {
  const asset = await readyAsset({
    inputs: [
      { url: subtitles.media.fileUrl(fixtures.file('audioOnly')) },
      { url: subtitles.url('frenchSrt'), type: 'text', text_type: 'subtitles', language_code: 'fr' },
    ],
    playback_policies: ['public'],
  });
  const trackId = textTracksOf(asset)[0].id as string;
  await waitForTrack(trackId, 'ready');
  const playbackId = asset.playback_ids[0].id as string;
  const playlist = await multivariant(playbackId);
  expect(playlist.variants).toHaveLength(1);
  expect(playlist.variants[0]!.attributes.SUBTITLES).toBe('subs');
  const audio = await loadMediaPlaylist(playlist.variants[0]!.url);
  const rendition = await loadMediaPlaylist(subtitleMedia(playlist)[0]!.url!);
  expect(rendition.segments.map((segment) => segment.duration)).toEqual(audio.segments.map((segment) => segment.duration));
  const segments = await Promise.all(rendition.segments.map((segment) => httpGet(segment.url)));
  expect(segments.flatMap((segment) => vttCueTexts(segment.text))).toEqual(['Bonjour <b>&amp;</b> <u>bienvenue</u>', 'Ça &lt; va ?']);
});
