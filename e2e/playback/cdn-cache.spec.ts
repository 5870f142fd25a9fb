import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from '@playwright/test';
import type Mux from '@mux/mux-node';
import { startPlayerPageServer, type PlayerReport } from '../../harness/player-page';
import { Api } from '../support/api';
import { chromiumLaunchOptions } from '../../harness/chromium';
import { parseMediaPlaylist, parseMultivariant } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import { NginxCache, type CacheLogEntry } from '../support/nginx';
import { REPO_ROOT } from '../../harness/paths';
import { expect, test } from '../support/playback';
import { disposeKeyframe, muxClient, startKeyframe } from '../support/test';

// Keyframe behind Debian's nginx as a caching reverse proxy (proxy_cache, configured as docs/delivery.md
// recommends: the default cache key, nothing overriding Keyframe's Cache-Control). Segments are
// stored once and served as HITs with the origin's bytes, Range requests included; expired
// playlists are revalidated with a 304 instead of downloaded again; signed playback never hands one
// viewer's response to another (restricted responses are private, tokens and proofs are part of
// the key); and hls.js plays the whole stream through the cache, the second time from the cache.

const run = promisify(execFile);
const FFMPEG = process.env.E2E_FFMPEG ?? 'ffmpeg';
// 320x240 is below the lowest rung, so the ladder has one video rung: both playbacks in the player
// test fetch the same segment URLs whatever hls.js's bandwidth estimate. 10 s → 4 video segments.
const SOURCE_FILE = 'cdn_testsrc2_320x240_30fps_sine_10s.mp4';

let keyframe: KeyframeServer;
let nginx: NginxCache;
let api: Api;
let mux: Mux;
let signingKey: { id: string; secret: string };
let publicId: string;
let signedId: string;

type Fetched = { status: number; headers: Headers; body: Buffer; text: string; cache: string | null };

const fetchUrl = async (url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Fetched> => {
  const response = await fetch(url, { method, headers, redirect: 'manual', signal: AbortSignal.timeout(120_000) });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, body, text: body.toString('utf8'), cache: response.headers.get('x-cache-status') };
};
/** Through the cache. */
const viaCache = (pathAndQuery: string, headers?: Record<string, string>, method?: string) => fetchUrl(nginx.url(pathAndQuery), headers, method);
/** Straight from Keyframe. */
const direct = (pathAndQuery: string, headers?: Record<string, string>, method?: string) => fetchUrl(keyframe.url(pathAndQuery), headers, method);

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};
const explain = (what: string, response: Fetched) =>
  `${what}: ${response.status} X-Cache-Status=${response.cache} Cache-Control=${response.headers.get('cache-control')} ${response.text.slice(0, 200)}`;

/** Multivariant, first video rendition and audio rendition of a playback ID, read straight from Keyframe. */
const loadStream = async (query = '') => {
  const multivariantPath = `/${publicId}.m3u8${query}`;
  const multivariant = await direct(multivariantPath);
  expect(multivariant.status, multivariant.text).toBe(200);
  const parsed = parseMultivariant(multivariant.text, keyframe.url(multivariantPath));
  const renditions = await Promise.all(
    [parsed.variants[0]!.url, ...parsed.media.flatMap((media) => (media.url ? [media.url] : []))].map(async (url) => {
      const response = await direct(pathOf(url));
      expect(response.status, response.text).toBe(200);
      return { path: pathOf(url), playlist: parseMediaPlaylist(response.text, url) };
    }),
  );
  return { multivariantPath, video: renditions[0]!, renditions };
};

const makeSource = async (dir: string): Promise<string> => {
  const target = path.join(dir, SOURCE_FILE);
  if (existsSync(target)) return target;
  const tmp = `${target}.tmp-${process.pid}.mp4`;
  await run(FFMPEG, [
    '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
    '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30:duration=10',
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=10',
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-ac', '2', '-movflags', '+faststart',
    tmp,
  ]);
  await rename(tmp, target);
  return target;
};

test.beforeAll(async ({ playbackFixtures, playbackMedia }) => {
  test.setTimeout(180_000);
  keyframe = await startKeyframe({ label: 'cdn-cache' });
  nginx = await NginxCache.start({ upstreamPort: keyframe.port, label: 'cdn-cache-nginx' });
  const token = await keyframe.createToken();
  api = new Api(keyframe.baseUrl, token);
  mux = muxClient(keyframe, token);
  const created = await mux.system.signingKeys.create();
  signingKey = { id: created.id, secret: created.private_key! };
  await makeSource(playbackFixtures.dir);
  const asset = await api.createAsset({ inputs: [{ url: playbackMedia.fileUrl(SOURCE_FILE) }], playback_policies: ['public', 'signed'] });
  const ready = await api.waitForStatus(asset.id, ['ready', 'errored'], 120_000);
  expect(ready.status, JSON.stringify(ready.errors)).toBe('ready');
  const idOf = (policy: string) => (ready.playback_ids as Array<{ id: string; policy: string }>).find((entry) => entry.policy === policy)!.id;
  publicId = idOf('public');
  signedId = idOf('signed');
});

test.afterAll(async () => {
  await nginx?.dispose();
  await disposeKeyframe(keyframe);
});

test.afterEach(async ({}, testInfo) => {
  if (nginx && testInfo.status !== testInfo.expectedStatus) {
    await testInfo.attach('nginx.log', { body: nginx.logs(), contentType: 'text/plain' });
  }
});

test('segments: the first request is a MISS, the second a HIT with the origin’s bytes; Range and conditional requests are answered correctly', async () => {
  const { video } = await loadStream();
  const { map, segments } = video.playlist;
  expect(map, 'EXT-X-MAP').toBeTruthy();
  expect(segments.length).toBeGreaterThanOrEqual(3);

  for (const url of [map!.url, segments[1]!.url]) {
    const target = pathOf(url);
    const first = await viaCache(target);
    expect(first.status, explain(target, first)).toBe(200);
    expect(first.cache, explain(target, first)).toBe('MISS');
    const second = await viaCache(target);
    expect(second.status, explain(target, second)).toBe(200);
    expect(second.cache, explain(target, second)).toBe('HIT');
    const origin = await direct(target);
    expect(origin.status).toBe(200);
    expect(origin.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(sha256(first.body), `${target}: MISS body = origin`).toBe(sha256(origin.body));
    expect(sha256(second.body), `${target}: HIT body = origin`).toBe(sha256(origin.body));
    // Without a Content-Length from Keyframe nginx cannot answer a Range request from the cache.
    expect(origin.headers.get('content-length'), `${target}: Content-Length from Keyframe`).toBe(String(origin.body.length));
    expect(origin.headers.get('accept-ranges'), `${target}: Accept-Ranges from Keyframe`).toBe('bytes');
    expect(second.headers.get('content-length')).toBe(String(origin.body.length));
    expect(second.headers.get('cache-control'), 'Cache-Control passes through unchanged').toBe(origin.headers.get('cache-control'));
    expect(second.headers.get('access-control-allow-origin')).toBe('*');
  }

  // A Range request for a cached segment: a 206 with exactly those bytes, from the cache.
  const cached = pathOf(segments[1]!.url);
  const whole = (await direct(cached)).body;
  const ranged = await viaCache(cached, { range: 'bytes=100-1099' });
  expect(ranged.status, explain(cached, ranged)).toBe(206);
  expect(ranged.cache).toBe('HIT');
  expect(ranged.headers.get('content-range')).toBe(`bytes 100-1099/${whole.length}`);
  expect(sha256(ranged.body)).toBe(sha256(whole.subarray(100, 1100)));
  const suffix = await viaCache(cached, { range: 'bytes=-500' });
  expect(suffix.status).toBe(206);
  expect(sha256(suffix.body)).toBe(sha256(whole.subarray(whole.length - 500)));

  // A Range request for a segment nobody fetched yet: nginx asks Keyframe for the whole segment
  // (it drops Range when it can cache the answer), stores it and answers the range from it.
  const cold = pathOf(segments[2]!.url);
  const coldRanged = await viaCache(cold, { range: 'bytes=0-99' });
  expect(coldRanged.cache, explain(cold, coldRanged)).toBe('MISS');
  const coldWhole = (await direct(cold)).body;
  expect(coldRanged.status, explain(cold, coldRanged)).toBe(206);
  expect(coldRanged.headers.get('content-range')).toBe(`bytes 0-99/${coldWhole.length}`);
  expect(sha256(coldRanged.body)).toBe(sha256(coldWhole.subarray(0, 100)));
  const coldAfter = await viaCache(cold);
  expect(coldAfter.cache, 'the whole segment was stored').toBe('HIT');
  expect(sha256(coldAfter.body)).toBe(sha256(coldWhole));

  // Revalidation by a player's or a browser's cache: the validators pass through, 304 from the cache.
  const etag = coldAfter.headers.get('etag');
  expect(etag, 'ETag of a cached segment').toBeTruthy();
  expect(coldAfter.headers.get('last-modified'), 'Last-Modified of a cached segment').toBeTruthy();
  const notModified = await viaCache(cold, { 'if-none-match': etag! });
  expect(notModified.status, explain(cold, notModified)).toBe(304);
  expect(notModified.body.length).toBe(0);
  const head = await viaCache(cold, {}, 'HEAD');
  expect(head.status).toBe(200);
  expect(head.headers.get('content-length')).toBe(String(coldWhole.length));
});

/**
 * Encodes every video segment, then lets the multivariant answer kept in memory lapse (10 s): the
 * next one declares what every segment was encoded at (AVERAGE-BANDWIDTH follows the encodes), and
 * from then on its body stays the same.
 */
const settleStream = async () => {
  const { multivariantPath } = await loadStream();
  const multivariant = await direct(multivariantPath);
  for (const variant of parseMultivariant(multivariant.text, keyframe.url(multivariantPath)).variants) {
    const playlist = parseMediaPlaylist((await direct(pathOf(variant.url))).text, variant.url);
    for (const segment of playlist.segments) expect((await direct(pathOf(segment.url))).status, segment.url).toBe(200);
  }
  await new Promise((resolve) => setTimeout(resolve, 10_500));
};

test('playlists: a HIT within max-age, revalidated with a 304 after it, never a different body', async () => {
  test.setTimeout(120_000);
  await settleStream();
  const { multivariantPath, video } = await loadStream();
  const playlists = [multivariantPath, video.path];
  const origin = await Promise.all(playlists.map((target) => direct(target)));
  for (const response of origin) expect(response.headers.get('cache-control')).toBe('public, max-age=10');

  const first = await Promise.all(playlists.map((target) => viaCache(target)));
  const second = await Promise.all(playlists.map((target) => viaCache(target)));
  playlists.forEach((target, index) => {
    expect(first[index]!.cache, explain(target, first[index]!)).toBe('MISS');
    expect(second[index]!.cache, explain(target, second[index]!)).toBe('HIT');
  });

  await new Promise((resolve) => setTimeout(resolve, 11_000)); // past max-age=10
  const before = nginx.accessLog().length;
  const third = await Promise.all(playlists.map((target) => viaCache(target)));
  const fourth = await Promise.all(playlists.map((target) => viaCache(target)));
  playlists.forEach((target, index) => {
    // nginx sent If-None-Match / If-Modified-Since and Keyframe answered 304 Not Modified.
    expect(third[index]!.cache, explain(target, third[index]!)).toBe('REVALIDATED');
    // The 304 carried Cache-Control, so the entry is fresh for another 10 s.
    expect(fourth[index]!.cache, explain(target, fourth[index]!)).toBe('HIT');
    for (const response of [first[index]!, second[index]!, third[index]!, fourth[index]!]) {
      expect(response.status).toBe(200);
      expect(response.text).toBe(origin[index]!.text);
    }
  });
  const revalidations = nginx.accessLog().slice(before).filter((entry) => entry.cache === 'REVALIDATED');
  expect(revalidations.map((entry) => entry.upstreamStatus).sort()).toEqual(['304', '304']);
});

test('signed playback: a cached response is never served to another token, to no token, or to a viewer a restriction refuses', async () => {
  const sign = (params: Record<string, string>, expiration: string) =>
    mux.jwt.signPlaybackId(signedId, { keyId: signingKey.id, keySecret: signingKey.secret, type: 'video', expiration, params });
  const restriction = await api.post('/video/v1/playback-restrictions', {
    referrer: { allowed_domains: ['a.example.com'], allow_no_referrer: false },
    user_agent: { allow_no_user_agent: true, allow_high_risk_user_agent: true },
  });
  expect(restriction.status, restriction.text).toBe(201);
  const viewerA = { referer: 'https://a.example.com/watch' };
  const viewerB = { referer: 'https://b.example.com/watch' };
  const refused = async (target: string, headers: Record<string, string>, why: string) => {
    const response = await viaCache(target, headers);
    expect(response.status, `${why} — ${explain(target, response)}`).toBe(403);
    expect(response.cache, `${why}: never from the cache`).not.toBe('HIT');
    expect(response.text).not.toContain('#EXTM3U');
    expect(response.headers.get('cache-control')).toBe('no-store');
  };

  // Restricted token: viewer A (allowed referrer) is served; the response is private, so B, with
  // the very same URL, is asked about by Keyframe and refused — the playlist, its renditions and
  // its segments alike.
  const restricted = `/${signedId}.m3u8?token=${await sign({ playback_restriction_id: restriction.json.data.id }, '1h')}`;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const forA = await viaCache(restricted, viewerA);
    expect(forA.status, explain('viewer A', forA)).toBe(200);
    expect(forA.headers.get('cache-control'), 'a response that depends on the Referer is private').toMatch(/^private\b/);
    expect(forA.cache, 'a private response is not stored').not.toBe('HIT');
  }
  await refused(restricted, viewerB, 'viewer B (referrer not allowed)');
  await refused(restricted, {}, 'no referrer');
  const restrictedPlaylist = parseMultivariant((await viaCache(restricted, viewerA)).text, nginx.url(restricted));
  const restrictedRendition = pathOf(restrictedPlaylist.variants[0]!.url);
  expect(restrictedRendition).toContain('?kfp=');
  const renditionForA = await viaCache(restrictedRendition, viewerA);
  expect(renditionForA.status, explain('rendition for A', renditionForA)).toBe(200);
  expect(renditionForA.headers.get('cache-control')).toMatch(/^private\b/);
  await refused(restrictedRendition, viewerB, 'rendition playlist for viewer B');
  const restrictedSegment = pathOf(parseMediaPlaylist(renditionForA.text, nginx.url(restrictedRendition)).segments[0]!.url);
  const segmentForA = await viaCache(restrictedSegment, viewerA);
  expect(segmentForA.status).toBe(200);
  expect(segmentForA.headers.get('cache-control')).toMatch(/^private\b/);
  // Not stored, so nginx cuts the range out of the whole segment it fetched for this request.
  const rangeForA = await viaCache(restrictedSegment, { ...viewerA, range: 'bytes=10-109' });
  expect(rangeForA.status, explain('Range request of viewer A', rangeForA)).toBe(206);
  expect(rangeForA.headers.get('content-range')).toBe(`bytes 10-109/${segmentForA.body.length}`);
  expect(sha256(rangeForA.body)).toBe(sha256(segmentForA.body.subarray(10, 110)));
  const segmentForB = await viaCache(restrictedSegment, viewerB);
  expect(segmentForB.status, explain('segment for viewer B', segmentForB)).toBe(403);
  expect(segmentForB.cache).not.toBe('HIT');

  // Two unrestricted tokens: public responses, cached under the full URL, token included.
  const token1 = await sign({}, '1h');
  const token2 = await sign({}, '2h');
  expect(token2).not.toBe(token1);
  const url1 = `/${signedId}.m3u8?token=${token1}`;
  const url2 = `/${signedId}.m3u8?token=${token2}`;
  const first1 = await viaCache(url1);
  expect(first1.status, explain('token 1', first1)).toBe(200);
  expect(first1.headers.get('cache-control')).toBe('public, max-age=10');
  expect((await viaCache(url1)).cache, 'token 1 again').toBe('HIT');
  const via2 = await viaCache(url2);
  expect(via2.status, explain('token 2', via2)).toBe(200);
  expect(via2.cache, 'token 2 is another cache entry').toBe('MISS');
  expect(via2.text, 'token 2 gets its own playlist (its own proofs)').toBe((await direct(url2)).text);
  expect(via2.text).not.toBe(first1.text);
  await refused(`/${signedId}.m3u8`, {}, 'the playlist URL without a token');
  await refused(`/${signedId}.m3u8?token=`, {}, 'an empty token');

  // The URLs a signed playlist lists carry a proof (?kfp=); the cached segment is served for that
  // URL only, never for the bare path.
  const rendition1 = pathOf(parseMultivariant(first1.text, nginx.url(url1)).variants[0]!.url);
  const media1 = parseMediaPlaylist((await viaCache(rendition1)).text, nginx.url(rendition1));
  const withProof = pathOf(media1.segments[1]!.url);
  expect(withProof).toMatch(/\?kfp=/);
  const segmentFirst = await viaCache(withProof);
  expect(segmentFirst.status, explain(withProof, segmentFirst)).toBe(200);
  expect((await viaCache(withProof)).cache, 'segment with its proof, again').toBe('HIT');
  const initWithProof = pathOf(media1.map!.url);
  expect(initWithProof).toMatch(/\?kfp=/);
  expect((await viaCache(initWithProof)).status).toBe(200);
  expect((await viaCache(initWithProof)).cache, 'init segment with its proof, again').toBe('HIT');
  await refused(withProof.split('?')[0]!, {}, 'the segment without its proof after a viewer with the proof fetched it');
  await refused(initWithProof.split('?')[0]!, {}, 'the init segment without its proof');
  await refused(rendition1.split('?')[0]!, {}, 'the rendition playlist without its proof');
  // Token 2's proof (another expiry) names another cache entry for the same rendition.
  const rendition2 = pathOf(parseMultivariant(via2.text, nginx.url(url2)).variants[0]!.url);
  expect(rendition2.split('?')[0]).toBe(rendition1.split('?')[0]);
  expect(rendition2).not.toBe(rendition1);
  const media2 = await viaCache(rendition2);
  expect(media2.cache, explain('rendition playlist with the proof of token 2', media2)).toBe('MISS');
  expect(media2.text).toBe((await direct(rendition2)).text);
});

test('hls.js plays the whole stream through the cache; the second playback is served from it', async ({}, testInfo) => {
  test.setTimeout(150_000);
  const { multivariantPath, renditions } = await loadStream();
  const mediaPaths = new Set(renditions.flatMap(({ playlist }) => [
    ...(playlist.map ? [pathOf(playlist.map.url)] : []),
    ...playlist.segments.map((segment) => pathOf(segment.url)),
  ]));
  const duration = renditions[0]!.playlist.totalDuration;

  const pageServer = await startPlayerPageServer(REPO_ROOT);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch(chromiumLaunchOptions);
    const play = async (label: string) => {
      // A fresh context each time: nothing comes from the browser's own HTTP cache.
      const context = await browser!.newContext();
      const page = await context.newPage();
      await page.goto(`${pageServer.origin}/`);
      const logStart = nginx.accessLog().length;
      const supported = await page.evaluate((src) => (window as unknown as { startPlayback: (src: string) => boolean }).startPlayback(src), nginx.url(multivariantPath));
      expect(supported, 'Hls.isSupported()').toBe(true);
      // Twice real time: the whole stream in about 5 s.
      await page.evaluate(() => {
        (document.getElementById('video') as HTMLVideoElement).playbackRate = 2;
      });
      const readReport = () => page.evaluate(() => (window as unknown as { report: PlayerReport }).report);
      let report = await readReport();
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && !report.fatal && !report.events.some((event) => event.type === 'ended')) {
        await page.waitForTimeout(250);
        report = await readReport();
      }
      const position = await page.evaluate(() => (document.getElementById('video') as HTMLVideoElement).currentTime);
      await testInfo.attach(`${label}-report.json`, { body: JSON.stringify({ position, ...report }, null, 2), contentType: 'application/json' });
      await context.close();
      expect(report.fatal, `${label}: fatal hls.js error ${JSON.stringify(report.fatal)}`).toBeNull();
      expect(report.events.some((event) => event.type === 'ended'), `${label}: played to the end (at ${position} s)`).toBe(true);
      expect(position).toBeGreaterThanOrEqual(duration - 0.5);
      return nginx.accessLog().slice(logStart);
    };
    const media = (entries: CacheLogEntry[]) => entries.filter((entry) => mediaPaths.has(entry.uri));

    const first = media(await play('first-playback'));
    expect(new Set(first.map((entry) => entry.uri)), 'every init and media segment of the stream was fetched').toEqual(mediaPaths);
    for (const entry of first) expect(entry.status, JSON.stringify(entry)).toBe(200);

    const second = media(await play('second-playback'));
    expect(new Set(second.map((entry) => entry.uri))).toEqual(mediaPaths);
    for (const entry of second) {
      expect(entry.status, JSON.stringify(entry)).toBe(200);
      expect(entry.cache, `second playback: ${entry.uri} from the cache`).toBe('HIT');
      expect(entry.upstreamStatus, 'Keyframe was not asked').toBe('');
    }
  } finally {
    await browser?.close();
    await pageServer.close();
  }
});
