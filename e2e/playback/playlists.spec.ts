import { randomBytes } from 'node:crypto';
import { Api } from '../support/api';
import { httpGet, maxAge, parseMediaPlaylist, type HttpResult, type MediaPlaylist } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import { sourceInfo, type SourceInfo } from '../support/media-probe';
import {
  createPlayableAsset,
  expect,
  loadMultivariant,
  multivariantUrl,
  pollMultivariant,
  test,
  type PlaybackFixtureName,
} from '../support/playback';
import { AUDIO_BANDWIDTH, AUDIO_TOLERANCE_S, expectMultivariantShape } from '../support/playback-checks';
import { disposeKeyframe, startKeyframe } from '../support/test';

// RFC 8216 and the delivery contract on every playlist of a few assets: tags, target duration,
// EXTINF sums, segment boundaries shared by every rung, URIs that resolve, content types,
// caching and CORS headers, and the status codes of the playback endpoints.

let server: KeyframeServer;
let api: Api;

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'playback-playlists' });
  api = new Api(server.baseUrl, await server.createToken());
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** AAC frames of 1024 samples at 48 kHz, 188 per segment. */
const AUDIO_SEGMENT_S = (188 * 1024) / 48_000;

const mediaType = (response: HttpResult) => (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();

const expectCors = (response: HttpResult) =>
  expect.soft(response.headers.get('access-control-allow-origin'), `Access-Control-Allow-Origin of ${response.status} ${response.url}`).toBe('*');

const expectPlaylistHeaders = (response: HttpResult) => {
  const context = `${response.url}`;
  expect.soft(response.status, context).toBe(200);
  expect.soft(mediaType(response), `Content-Type of ${context}`).toBe(PLAYLIST_TYPE);
  expectCors(response);
  const cacheControl = response.headers.get('cache-control');
  const age = maxAge(cacheControl);
  expect.soft(age, `playlist Cache-Control "${cacheControl}" of ${context} needs a max-age`).toBeDefined();
  expect.soft(age ?? Infinity, `playlist Cache-Control "${cacheControl}" of ${context}: short max-age`).toBeLessThanOrEqual(600);
  expect.soft(cacheControl ?? '', `playlist Cache-Control of ${context}`).not.toContain('immutable');
};

const expectFileHeaders = (response: HttpResult, kind: 'init' | 'segment', audio: boolean) => {
  const context = `${response.url}`;
  expect.soft(response.status, context).toBe(200);
  const accepted = ['video/mp4', ...(kind === 'segment' ? ['video/iso.segment'] : []), ...(audio ? ['audio/mp4'] : [])];
  expect.soft(accepted, `Content-Type "${response.headers.get('content-type')}" of ${context}`).toContain(mediaType(response));
  expectCors(response);
  const cacheControl = response.headers.get('cache-control');
  if (kind === 'segment') {
    expect.soft(cacheControl, `Cache-Control of ${context}`).toBe(IMMUTABLE);
  } else {
    expect.soft(maxAge(cacheControl) ?? 0, `Cache-Control "${cacheControl}" of ${context}`).toBeGreaterThan(0);
  }
  expect.soft(response.body.length, `body of ${context}`).toBeGreaterThan(0);
  const declared = response.headers.get('content-length');
  if (declared !== null) expect.soft(Number(declared), `Content-Length of ${context}`).toBe(response.body.length);
};

/** Structure and timing of one media playlist; returns the parsed playlist. */
const checkMediaPlaylist = (
  response: HttpResult,
  { rung, source, frameDuration }: { rung: string; source: SourceInfo; frameDuration: number },
): MediaPlaylist => {
  const playlist = parseMediaPlaylist(response.text, response.url);
  const context = `${response.url}\n${response.text}`;
  const audio = rung === 'audio';
  expect.soft(playlist.version, `EXT-X-VERSION of ${context}`).toBe(7);
  expect.soft(playlist.playlistType, `EXT-X-PLAYLIST-TYPE of ${context}`).toBe('VOD');
  expect.soft(playlist.endList, `EXT-X-ENDLIST in ${context}`).toBe(true);
  expect.soft(playlist.lines.at(-1), `EXT-X-ENDLIST is the last line of ${context}`).toBe('#EXT-X-ENDLIST');
  expect.soft(playlist.map?.uri, `EXT-X-MAP of ${context}`).toBe(`${rung}/init.mp4`);
  expect.soft(playlist.segments.length, `segments in ${context}`).toBeGreaterThan(0);
  expect.soft(playlist.mediaSequence, context).toBe(0);
  expect.soft(playlist.segments.map((segment) => segment.uri), `segment URIs of ${context}`).toEqual(
    playlist.segments.map((_, index) => `${rung}/${index}.m4s`),
  );

  const target = playlist.targetDuration;
  expect.soft(Number.isInteger(target), `EXT-X-TARGETDURATION of ${context} is an integer`).toBe(true);
  for (const [index, segment] of playlist.segments.entries()) {
    expect.soft(segment.duration, `EXTINF of segment ${index} in ${response.url}`).toBeGreaterThan(0);
    expect.soft(target ?? 0, `TARGETDURATION >= round(EXTINF ${segment.duration}) of segment ${index} in ${response.url}`).toBeGreaterThanOrEqual(
      Math.round(segment.duration),
    );
  }

  const durations = playlist.segments.map((segment) => segment.duration);
  if (audio) {
    const expected = source.audioDurations;
    expect
      .soft(Math.min(...expected.map((value) => Math.abs(value - playlist.totalDuration))), `sum of EXTINF ${playlist.totalDuration} vs source audio ${expected} (${response.url})`)
      .toBeLessThanOrEqual(AUDIO_TOLERANCE_S);
    durations.slice(0, -1).forEach((duration, index) =>
      expect.soft(Math.abs(duration - AUDIO_SEGMENT_S), `audio segment ${index} lasts 188 AAC frames (${AUDIO_SEGMENT_S.toFixed(6)} s), EXTINF ${duration} in ${response.url}`).toBeLessThan(0.0005),
    );
    expect.soft(durations.at(-1) ?? 0, `last audio segment of ${response.url}`).toBeLessThanOrEqual(AUDIO_SEGMENT_S + 0.0005);
  } else {
    const sourceDuration = source.video!.duration;
    expect
      .soft(Math.abs(playlist.totalDuration - sourceDuration), `sum of EXTINF ${playlist.totalDuration} vs source video ${sourceDuration} (${response.url})`)
      .toBeLessThanOrEqual(frameDuration + 0.001);
    // First two segments ~2 s, then ~4 s, in whole frames; the last one may be shorter.
    durations.forEach((duration, index) => {
      const nominal = index < 2 ? 2 : 4;
      const last = index === durations.length - 1;
      if (last) expect.soft(duration, `last segment ${index} of ${response.url}`).toBeLessThanOrEqual(nominal + frameDuration + 0.001);
      else expect.soft(Math.abs(duration - nominal), `segment ${index} lasts ~${nominal} s, EXTINF ${duration} in ${response.url}`).toBeLessThanOrEqual(frameDuration + 0.001);
      const frames = duration / frameDuration;
      expect.soft(Math.abs(frames - Math.round(frames)), `segment ${index} of ${response.url} is ${frames.toFixed(3)} frames (whole frames expected)`).toBeLessThan(0.02);
    });
  }
  return playlist;
};

type PlaylistCase = { title: string; fixture: PlaybackFixtureName };
const cases: PlaylistCase[] = [
  { title: '1080p + audio', fixture: 'landscape1080p6s' },
  { title: 'audio only', fixture: 'audioOnly' },
  { title: 'video only', fixture: 'videoOnly' },
];

for (const sample of cases) {
  test(`every playlist of a ${sample.title} asset: RFC 8216, URIs resolve, headers`, async ({ playbackFixtures, playbackMedia }, testInfo) => {
    test.setTimeout(300_000); // fetches (so encodes) every segment of every rung
    const source = await sourceInfo(await playbackFixtures.ensure(sample.fixture));
    const { playbackId } = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file(sample.fixture)));
    const url = multivariantUrl(server, playbackId);
    const multivariantResponse = await httpGet(url);
    expectPlaylistHeaders(multivariantResponse);
    const multivariant = await loadMultivariant(url);
    expectMultivariantShape(multivariant, { playbackId, hasVideo: !!source.video, hasAudio: source.audioDurations.length > 0 });

    const renditions = [
      ...multivariant.video.map((variant) => ({ rung: variant.name, url: variant.url, frameRate: variant.frameRate })),
      ...multivariant.media.filter((media) => media.url).map((media) => ({ rung: 'audio', url: media.url!, frameRate: undefined })),
      ...multivariant.audioOnly.map((variant) => ({ rung: 'audio', url: variant.url, frameRate: undefined })),
    ];
    expect(renditions.length).toBeGreaterThan(0);
    const videoBoundaries = new Map<string, number[]>();
    const summary: Record<string, unknown> = {};
    for (const rendition of renditions) {
      const response = await httpGet(rendition.url);
      expectPlaylistHeaders(response);
      if (response.status !== 200) continue;
      const frameDuration = 1 / (rendition.frameRate ?? (source.video ? 1 / source.video.minFrameDuration : 30));
      const playlist = checkMediaPlaylist(response, { rung: rendition.rung, source, frameDuration });
      if (rendition.rung !== 'audio') videoBoundaries.set(rendition.rung, playlist.segments.map((segment) => segment.duration));
      summary[rendition.rung] = { target: playlist.targetDuration, extinf: playlist.segments.map((segment) => segment.duration) };

      // Every URI resolves, with the right headers (this also encodes every segment).
      const audio = rendition.rung === 'audio';
      if (playlist.map) expectFileHeaders(await httpGet(playlist.map.url), 'init', audio);
      for (const segment of playlist.segments) expectFileHeaders(await httpGet(segment.url), 'segment', audio);
    }
    await testInfo.attach('playlists.json', { body: JSON.stringify(summary, null, 2), contentType: 'application/json' });

    // Identical segment boundaries in every video rung.
    const [first, ...others] = [...videoBoundaries.entries()];
    for (const [rung, durations] of others) {
      expect.soft(durations, `EXTINF list of ${rung} vs ${first![0]}`).toEqual(first![1]);
    }
  });
}

// --- status codes ---

const playbackPaths = (playbackId: string, rung = '360p') => [
  `/${playbackId}.m3u8`,
  `/${playbackId}/${rung}.m3u8`,
  `/${playbackId}/${rung}/init.mp4`,
  `/${playbackId}/${rung}/0.m4s`,
  `/${playbackId}/audio.m3u8`,
  `/${playbackId}/audio/0.m4s`,
];

const expectStatus = async (path: string, status: number) => {
  const response = await httpGet(server.url(path));
  expect.soft(response.status, `GET ${path}: ${response.text.slice(0, 200)}`).toBe(status);
  expectCors(response);
  return response;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('status codes: 404 unknown/deleted, 412 preparing/errored, 400 malformed, 403 signed, 404 unknown rung/segment', async ({
  media,
  fixtures,
  playbackFixtures,
  playbackMedia,
}) => {
  await playbackFixtures.ensure('landscape1080p');
  const ready = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('landscape1080p')));
  await expectStatus(`/${ready.playbackId}.m3u8`, 200);

  // Unknown playback ID (well-formed, same length as a real one).
  const unknown = randomBytes(32).toString('hex').replace(/[^a-z0-9]/gi, '').slice(0, ready.playbackId.length);
  for (const path of playbackPaths(unknown)) await expectStatus(path, 404);

  // Malformed playback IDs.
  await expectStatus('/bad!id.m3u8', 400);
  await expectStatus(`/${ready.playbackId.slice(0, 5)}!${ready.playbackId.slice(6)}.m3u8`, 400);

  // Unknown rung, rung not in this asset's ladder, segment index out of range.
  await expectStatus(`/${ready.playbackId}/999p.m3u8`, 404);
  await expectStatus(`/${ready.playbackId}/foo.m3u8`, 404);
  await expectStatus(`/${ready.playbackId}/2160p.m3u8`, 404);
  await expectStatus(`/${ready.playbackId}/2160p/0.m4s`, 404);
  await expectStatus(`/${ready.playbackId}/360p/999.m4s`, 404);
  await expectStatus(`/${ready.playbackId}/audio/999.m4s`, 404);

  // Still preparing: the media server trickles the input forever.
  const preparing = await api.createAsset({ inputs: [{ url: media.slowUrl(fixtures.file('video720p')) }], playback_policies: ['public'] });
  const preparingId = preparing.playback_ids[0].id as string;
  for (const path of playbackPaths(preparingId)) await expectStatus(path, 412);

  // Errored: random bytes.
  const broken = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('corrupt')) }], playback_policies: ['public'] });
  const errored = await api.waitForStatus(broken.id, ['ready', 'errored']);
  expect(errored.status).toBe('errored');
  for (const path of playbackPaths(broken.playback_ids[0].id)) await expectStatus(path, 412);

  // Signed playback IDs without a token: 403 (tokens are covered in signed-playback.spec.ts).
  const signed = await api.createAsset({ inputs: [{ url: playbackMedia.fileUrl(playbackFixtures.file('landscape1080p')) }], playback_policies: ['signed'] });
  expect(signed.playback_ids).toEqual([{ id: expect.any(String), policy: 'signed' }]);
  const signedReady = await api.waitForStatus(signed.id);
  expect(signedReady.status).toBe('ready');
  for (const path of playbackPaths(signed.playback_ids[0].id)) await expectStatus(path, 403);

  // Deleted playback ID, then a deleted asset.
  const doomed = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('landscape1080p')));
  await expectStatus(`/${doomed.playbackId}.m3u8`, 200);
  const removal = await api.delete(`/video/v1/assets/${doomed.assetId}/playback-ids/${doomed.playbackId}`);
  expect(removal.status, removal.text).toBe(204);
  for (const path of playbackPaths(doomed.playbackId)) await expectStatus(path, 404);

  const second = await api.post(`/video/v1/assets/${ready.assetId}/playback-ids`, { policy: 'public' });
  expect(second.status, second.text).toBe(201);
  const secondId = second.json.data.id as string;
  await expectStatus(`/${secondId}.m3u8`, 200);
  const deleted = await api.delete(`/video/v1/assets/${ready.assetId}`);
  expect(deleted.status, deleted.text).toBe(204);
  await sleep(200);
  for (const path of [...playbackPaths(ready.playbackId), ...playbackPaths(secondId)]) await expectStatus(path, 404);
});

test('AVERAGE-BANDWIDTH says what each rung was encoded at; BANDWIDTH bounds every segment', async ({ playbackFixtures, playbackMedia }) => {
  test.setTimeout(180_000);
  await playbackFixtures.ensure('landscape720p');
  const { playbackId } = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('landscape720p')));
  const url = multivariantUrl(server, playbackId);
  const before = await loadMultivariant(url);
  const encoded = new Map<string, number>();
  for (const variant of before.video) {
    const playlist = parseMediaPlaylist((await httpGet(variant.url)).text, variant.url);
    let bits = 0;
    for (const segment of playlist.segments) {
      const media = await httpGet(segment.url);
      expect(media.status, segment.url).toBe(200);
      bits += media.body.length * 8;
      expect.soft((media.body.length * 8) / segment.duration, `${segment.url} against BANDWIDTH=${variant.bandwidth} less audio`).toBeLessThanOrEqual(variant.bandwidth - AUDIO_BANDWIDTH);
    }
    // Video bits per second, and the audio every variant plays with.
    encoded.set(variant.name, bits / playlist.totalDuration + AUDIO_BANDWIDTH);
  }
  // Answers from memory are reused for up to 10 s (the playlist's max-age).
  const close = (variant: { name: string; averageBandwidth: number | undefined }) =>
    variant.averageBandwidth !== undefined && Math.abs(variant.averageBandwidth / encoded.get(variant.name)! - 1) < 0.015;
  const after = await pollMultivariant(url, (playlist) => playlist.video.every(close), { timeoutMs: 15_000, intervalMs: 1_000 });
  for (const variant of after.video) {
    expect.soft(variant.averageBandwidth, `AVERAGE-BANDWIDTH of ${variant.name} (encoded ${Math.round(encoded.get(variant.name)!)})\n${after.text}`).toBeDefined();
    expect.soft(close(variant), `AVERAGE-BANDWIDTH=${variant.averageBandwidth} of ${variant.name} against ${Math.round(encoded.get(variant.name)!)} encoded`).toBe(true);
    expect.soft(variant.bandwidth, `BANDWIDTH of ${variant.name} does not move`).toBe(before.video.find((entry) => entry.name === variant.name)?.bandwidth);
  }
});
