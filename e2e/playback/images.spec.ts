import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type Mux from '@mux/mux-node';
import sharp from 'sharp';
import { Api } from '../support/api';
import {
  decodeImage,
  ensureImageFixture,
  fetchBytes,
  isColor,
  jsonOf,
  parseStoryboardVtt,
  probeAnimation,
  SECOND_COLORS,
  type Fetched,
  type ImageFixtureName,
} from '../support/images';
import { isCluster, type KeyframeServer } from '../support/keyframe-server';
import { ffmpeg, ffprobe } from '../support/media-probe';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test, type PlayableAsset } from '../support/playback';
import { loadMediaPlaylist } from '../support/playback-checks';
import { disposeKeyframe, muxClient, startKeyframe } from '../support/test';

// The image API on the stream origin, checked by decoding what it serves: thumbnails at exactly
// the size, format and frame asked for (a source with one colour per second tells the frames
// apart), rotated sources upright, animated GIF/WebP frame counts, storyboards whose VTT/JSON and
// sprite agree tile for tile, caching, status codes, and signed playback IDs whose parameters come
// from the token.

let server: KeyframeServer;
let api: Api;
let mux: Mux;

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'playback-images' });
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
});

test.afterAll(async () => {
  await disposeKeyframe(server);
});

const IMMUTABLE = 'public, max-age=31536000, immutable';

const assets = new Map<string, Promise<PlayableAsset>>();
const assetFor = (name: ImageFixtureName, dir: string, fileUrl: (file: string) => string): Promise<PlayableAsset> => {
  let pending = assets.get(name);
  if (!pending) {
    pending = ensureImageFixture(dir, name).then((file) => createPlayableAsset(api, fileUrl(path.basename(file))));
    assets.set(name, pending);
    pending.catch(() => assets.delete(name));
  }
  return pending;
};

const image = (playbackId: string, name: string, query = '') => fetchBytes(server.url(`/${playbackId}/${name}${query ? `?${query}` : ''}`));

// A signed image is cacheable only as long as its token lives (mux-node's default: 7 days).
const SIGNED_TOKEN_SECONDS = 7 * 24 * 3600;

const expectImage = async (
  fetched: Fetched,
  format: 'jpeg' | 'png' | 'webp' | 'gif',
  size: { width: number; height: number },
  { signed = false } = {},
) => {
  expect(fetched.status, `${fetched.url}: ${fetched.body.toString('utf8').slice(0, 300)}`).toBe(200);
  expect(fetched.headers.get('content-type'), fetched.url).toBe(`image/${format}`);
  if (signed) {
    const maxAge = Number(/^public, max-age=(\d+), immutable$/.exec(fetched.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge, fetched.url).toBeLessThanOrEqual(SIGNED_TOKEN_SECONDS);
    expect(maxAge, fetched.url).toBeGreaterThan(SIGNED_TOKEN_SECONDS - 600);
  } else {
    expect(fetched.headers.get('cache-control'), fetched.url).toBe(IMMUTABLE);
  }
  expect(fetched.headers.get('access-control-allow-origin'), fetched.url).toBe('*');
  const decoded = await decodeImage(fetched.body);
  expect({ format: decoded.format, width: decoded.width, height: decoded.height }, fetched.url).toEqual({ format, ...size });
  return decoded;
};

const expectError = async (fetched: Fetched, status: number, type: string, message?: RegExp) => {
  expect(fetched.status, `${fetched.url}: ${fetched.body.toString('utf8').slice(0, 300)}`).toBe(status);
  const body = jsonOf(fetched) as { error: { type: string; messages: string[] } };
  expect(body.error.type, fetched.url).toBe(type);
  if (message) expect(body.error.messages.join(' | '), fetched.url).toMatch(message);
};

const centre = (decoded: { width: number; height: number; pixel: (x: number, y: number) => number[] }) =>
  decoded.pixel(Math.floor(decoded.width / 2), Math.floor(decoded.height / 2));

test('thumbnail: exactly the size and format asked for, in every fit mode', async ({ playbackFixtures, playbackMedia }) => {
  const { playbackId } = await assetFor('colors', playbackFixtures.dir, (file) => playbackMedia.fileUrl(file));
  const original = await image(playbackId, 'thumbnail.jpg');
  await expectImage(original, 'jpeg', { width: 640, height: 360 });
  const head = await fetch(server.url(`/${playbackId}/thumbnail.jpg`), { method: 'HEAD' });
  expect({ status: head.status, type: head.headers.get('content-type'), body: (await head.arrayBuffer()).byteLength }).toEqual({
    status: 200,
    type: 'image/jpeg',
    body: 0,
  });
  await expectImage(await image(playbackId, 'thumbnail.png', 'width=320'), 'png', { width: 320, height: 180 });
  await expectImage(await image(playbackId, 'thumbnail.webp', 'height=90'), 'webp', { width: 160, height: 90 });
  // preserve (the default) fits inside the box: Mux's 100x100 of a 16:9 video is 100x56.
  await expectImage(await image(playbackId, 'thumbnail.jpg', 'width=100&height=100'), 'jpeg', { width: 100, height: 56 });
  for (const fitMode of ['stretch', 'crop', 'smartcrop', 'pad']) {
    await expectImage(await image(playbackId, 'thumbnail.png', `width=300&height=100&fit_mode=${fitMode}`), 'png', { width: 300, height: 100 });
  }
  // pad letterboxes: a 200x200 of a 16:9 frame has black bars above and below the picture.
  const padded = await expectImage(await image(playbackId, 'thumbnail.png', 'time=0.5&width=200&height=200&fit_mode=pad'), 'png', { width: 200, height: 200 });
  expect(isColor(padded.pixel(100, 10), [0, 0, 0], 8), `pad bar ${padded.pixel(100, 10)}`).toBe(true);
  expect(isColor(centre(padded), SECOND_COLORS[0].rgb), `pad picture ${centre(padded)}`).toBe(true);
  // rotate turns the image clockwise first, then width/height apply to the rotated picture.
  await expectImage(await image(playbackId, 'thumbnail.jpg', 'rotate=90'), 'jpeg', { width: 360, height: 640 });
  await expectImage(await image(playbackId, 'thumbnail.jpg', 'rotate=270&width=90'), 'jpeg', { width: 90, height: 160 });
  await expectImage(await image(playbackId, 'thumbnail.jpg', 'rotate=180&flip_v=true&flip_h=true&width=64'), 'jpeg', { width: 64, height: 36 });
});

test('thumbnail: the frame on screen at `time`, not the previous keyframe; default the middle, past the end the last frame', async ({
  playbackFixtures,
  playbackMedia,
}) => {
  const { playbackId } = await assetFor('colors', playbackFixtures.dir, (file) => playbackMedia.fileUrl(file));
  const [red, lime, blue, white] = SECOND_COLORS;
  // The whole 4 s clip is one GOP, so every one of these decodes from the red keyframe at 0.
  const cases: Array<{ query: string; expected: (typeof SECOND_COLORS)[number] }> = [
    { query: 'time=0.5', expected: red },
    { query: 'time=1.5', expected: lime },
    { query: 'time=1.98', expected: lime }, // frame 59 (1.967 s), the last green one
    { query: 'time=2', expected: blue }, // frame 60 starts the blue second
    { query: '', expected: blue }, // the middle of a 4 s video is 2.0 s
    { query: 'time=3.5', expected: white },
    { query: 'time=60', expected: white }, // past the end: the last frame
  ];
  const seen = new Map<string, Buffer>();
  for (const { query, expected } of cases) {
    const fetched = await image(playbackId, 'thumbnail.png', `${query}${query ? '&' : ''}width=64`);
    const decoded = await expectImage(fetched, 'png', { width: 64, height: 36 });
    expect(isColor(centre(decoded), expected.rgb), `time ${query || '(default)'}: centre ${centre(decoded)} should be ${expected.name}`).toBe(true);
    seen.set(query, fetched.body);
  }
  expect(seen.get('time=0.5')?.equals(seen.get('time=1.5')!)).toBe(false);
});

// A pure hue stays pure once converted (Hable's curve darkens it); shown unconverted, HLG's values
// read as BT.709 wash every colour towards grey (red comes out about 136, 53, 28).
const isPureHue = (pixel: number[], rgb: readonly number[]) =>
  pixel.every((value, index) => (rgb[index] === 255 ? value >= 110 : value <= 30));

test('HDR (HLG) source: thumbnails, GIF frames and every video rung are SDR BT.709 with their colours kept', async ({ playbackFixtures, playbackMedia }, testInfo) => {
  const { playbackId } = await assetFor('colorsHlg', playbackFixtures.dir, (file) => playbackMedia.fileUrl(file));
  for (const [second, expected] of SECOND_COLORS.entries()) {
    const decoded = await expectImage(await image(playbackId, 'thumbnail.png', `time=${second + 0.5}&width=64`), 'png', { width: 64, height: 36 });
    expect(isPureHue(centre(decoded), expected.rgb), `thumbnail at ${second + 0.5} s: ${centre(decoded)} should be ${expected.name}`).toBe(true);
  }
  const gif = await image(playbackId, 'animated.gif', 'start=0&end=1&width=64&fps=5');
  expect(gif.status).toBe(200);
  expect(isPureHue(centre(await decodeImage(gif.body)), [255, 0, 0]), 'first GIF frame is red').toBe(true);

  const playlist = await loadMultivariant(multivariantUrl(server, playbackId));
  expect(playlist.video.length).toBeGreaterThan(0);
  for (const variant of playlist.video) {
    const media = await loadMediaPlaylist(variant.url!);
    const [init, first] = await Promise.all([fetchBytes(media.map!.url), fetchBytes(media.segments[0]!.url)]);
    const file = testInfo.outputPath(`${variant.name}.mp4`);
    await writeFile(file, Buffer.concat([init.body, first.body]));
    const probed = await ffprobe(['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=pix_fmt,color_space,color_transfer,color_primaries', '-of', 'json', file]);
    expect(JSON.parse(probed.stdout).streams[0], variant.name).toEqual({ pix_fmt: 'yuv420p', color_space: 'bt709', color_transfer: 'bt709', color_primaries: 'bt709' });
  }
});

test('rotated source: thumbnails and storyboard tiles come out upright, like ffmpeg displays it', async ({ playbackFixtures, playbackMedia }, testInfo) => {
  const { playbackId } = await assetFor('rotated', playbackFixtures.dir, (file) => playbackMedia.fileUrl(file));
  const source = path.join(playbackFixtures.dir, 'img_split_red_blue_640x360_rotate90_2s.mp4');
  // Reference: the frame as ffmpeg shows it (it applies the display matrix).
  const reference = testInfo.outputPath('reference.png');
  const grabbed = await ffmpeg(['-v', 'error', '-y', '-ss', '1', '-i', source, '-frames:v', '1', reference]);
  expect(grabbed.code, grabbed.stderr).toBe(0);
  const upright = await decodeImage(await readFile(reference));
  expect({ width: upright.width, height: upright.height }).toEqual({ width: 360, height: 640 });
  const top = upright.pixel(180, 80);
  const bottom = upright.pixel(180, 560);
  expect(isColor(top, bottom, 60), 'the two halves of the reference differ').toBe(false);

  const thumbnail = await expectImage(await image(playbackId, 'thumbnail.png', 'time=1'), 'png', { width: 360, height: 640 });
  expect(isColor(thumbnail.pixel(180, 80), top), `top ${thumbnail.pixel(180, 80)} vs reference ${top}`).toBe(true);
  expect(isColor(thumbnail.pixel(180, 560), bottom), `bottom ${thumbnail.pixel(180, 560)} vs reference ${bottom}`).toBe(true);
  // flip_v mirrors the finished (upright) image top to bottom.
  const flipped = await expectImage(await image(playbackId, 'thumbnail.png', 'time=1&flip_v=true'), 'png', { width: 360, height: 640 });
  expect(isColor(flipped.pixel(180, 80), bottom)).toBe(true);

  const storyboard = jsonOf(await image(playbackId, 'storyboard.json')) as { tile_width: number; tile_height: number };
  expect({ width: storyboard.tile_width, height: storyboard.tile_height }).toEqual({ width: 144, height: 256 });
});

test('animated GIF and WebP: frame count ≈ fps × span, size from width/height, frames from the right times', async ({
  playbackFixtures,
  playbackMedia,
}, testInfo) => {
  const { playbackId } = await assetFor('colors', playbackFixtures.dir, (file) => playbackMedia.fileUrl(file));
  const gif = await image(playbackId, 'animated.gif', 'start=0.5&end=2.5&fps=10');
  await expectImage(gif, 'gif', { width: 320, height: 180 });
  const gifProbe = await probeAnimation(gif.body, testInfo.outputPath('clip.gif'));
  expect(gifProbe.codec).toBe('gif');
  expect(Math.abs(gifProbe.frames - 20), `GIF frames ${gifProbe.frames} for 2 s at 10 fps`).toBeLessThanOrEqual(1);
  const firstFrame = await decodeImage(gif.body, 0);
  const lastFrame = await decodeImage(gif.body, gifProbe.frames - 1);
  expect(isColor(centre(firstFrame), SECOND_COLORS[0].rgb), `first GIF frame ${centre(firstFrame)} (0.5 s) is red`).toBe(true);
  expect(isColor(centre(lastFrame), SECOND_COLORS[2].rgb), `last GIF frame ${centre(lastFrame)} (2.4 s) is blue`).toBe(true);

  // Defaults: 0–5 s (cut at the 4 s end), 15 fps, 320 wide.
  const defaults = await image(playbackId, 'animated.gif');
  await expectImage(defaults, 'gif', { width: 320, height: 180 });
  const defaultProbe = await probeAnimation(defaults.body, testInfo.outputPath('defaults.gif'));
  expect(Math.abs(defaultProbe.frames - 60), `default GIF frames ${defaultProbe.frames} for 4 s at 15 fps`).toBeLessThanOrEqual(1);

  const webp = await image(playbackId, 'animated.webp', 'start=1&end=3&width=200&fps=12');
  await expectImage(webp, 'webp', { width: 200, height: 113 });
  // libwebp merges identical consecutive frames into one longer frame, so the WebP is checked by
  // its total duration and by decoding every frame, not by a frame count.
  const webpMetadata = await sharp(webp.body, { animated: true }).metadata();
  const totalMs = (webpMetadata.delay ?? []).reduce((sum, delay) => sum + delay, 0);
  expect(Math.abs(totalMs - 2000), `WebP lasts ${totalMs} ms (${webpMetadata.delay}) for 2 s`).toBeLessThanOrEqual(1000 / 12 + 1);
  const frames = await sharp(webp.body, { animated: true }).raw().toBuffer({ resolveWithObject: true });
  expect(frames.info.height).toBe(113 * (webpMetadata.pages ?? 0));
  const lastWebpFrame = await decodeImage(webp.body, (webpMetadata.pages ?? 1) - 1);
  expect(isColor(centre(await decodeImage(webp.body, 0)), SECOND_COLORS[1].rgb), 'first WebP frame (1 s) is lime').toBe(true);
  expect(isColor(centre(lastWebpFrame), SECOND_COLORS[2].rgb), `last WebP frame (2.9 s) ${centre(lastWebpFrame)} is blue`).toBe(true);
  await expectImage(await image(playbackId, 'animated.gif', 'height=90'), 'gif', { width: 160, height: 90 });
});

test('storyboard: VTT cues cover the whole duration back to back, every tile inside the sprite and showing its time', async ({
  playbackFixtures,
  playbackMedia,
}) => {
  const { playbackId, asset } = await assetFor('colors', playbackFixtures.dir, (file) => playbackMedia.fileUrl(file));
  const vttResponse = await image(playbackId, 'storyboard.vtt');
  expect(vttResponse.status).toBe(200);
  expect(vttResponse.headers.get('content-type')).toMatch(/^text\/vtt/);
  const vtt = vttResponse.body.toString('utf8');
  expect(vtt.startsWith('WEBVTT\n')).toBe(true);
  const cues = parseStoryboardVtt(vtt);
  expect(cues).toHaveLength(50);
  expect(cues[0]?.start).toBe(0);
  expect(Math.abs((cues.at(-1)?.end ?? 0) - Number(asset.duration)), `last cue end vs duration ${asset.duration}`).toBeLessThanOrEqual(0.05);
  cues.slice(1).forEach((cue, index) => expect(cue.start, `cue ${index + 1} starts where cue ${index} ends`).toBe(cues[index]?.end));
  for (const cue of cues) expect(cue.url).toBe(server.url(`/${playbackId}/storyboard.jpg`));

  const spriteResponse = await image(playbackId, 'storyboard.jpg');
  const sprite = await expectImage(spriteResponse, 'jpeg', { width: 2560, height: 720 });
  for (const cue of cues) {
    expect(cue.x + cue.w <= sprite.width && cue.y + cue.h <= sprite.height, `tile ${JSON.stringify(cue)} inside ${sprite.width}x${sprite.height}`).toBe(true);
    const color = SECOND_COLORS[Math.min(3, Math.floor(cue.start + 1e-6))]!;
    const pixel = sprite.pixel(cue.x + Math.floor(cue.w / 2), cue.y + Math.floor(cue.h / 2));
    expect(isColor(pixel, color.rgb), `tile at ${cue.start} s is ${pixel}, expected ${color.name}`).toBe(true);
  }

  // JSON: the same layout, Mux's field names; `format` picks the sprite URL's format.
  const json = jsonOf(await image(playbackId, 'storyboard.json', 'format=webp')) as {
    url: string;
    tile_width: number;
    tile_height: number;
    duration: number;
    tiles: Array<{ start: number; x: number; y: number }>;
  };
  expect(Object.keys(json)).toEqual(['url', 'tile_width', 'tile_height', 'duration', 'tiles']);
  expect(json.url).toBe(server.url(`/${playbackId}/storyboard.webp`));
  expect(json.tiles.map(({ start, x, y }) => ({ start, x, y }))).toEqual(cues.map(({ start, x, y }) => ({ start, x, y })));
  expect({ width: json.tile_width, height: json.tile_height }).toEqual({ width: 256, height: 144 });
  expect(parseStoryboardVtt((await image(playbackId, 'storyboard.vtt', 'format=png')).body.toString('utf8'))[0]?.url).toBe(
    server.url(`/${playbackId}/storyboard.png`),
  );
  await expectImage(await image(playbackId, 'storyboard.webp'), 'webp', { width: 2560, height: 720 });
  await expectImage(await image(playbackId, 'storyboard.png'), 'png', { width: 2560, height: 720 });
});

test('storyboard of a 10-minute asset: one tile every 12 s, each showing a frame from its own interval', async ({
  playbackFixtures,
  playbackMedia,
}, testInfo) => {
  const { playbackId } = await assetFor('grayRamp', playbackFixtures.dir, (file) => playbackMedia.fileUrl(file));
  // The VTT request starts the sprite in the background; the sprite request joins it.
  const started = performance.now();
  const cues = parseStoryboardVtt((await image(playbackId, 'storyboard.vtt')).body.toString('utf8'));
  expect(cues).toHaveLength(50);
  expect(cues[1]?.start).toBe(12);
  expect(cues.at(-1)?.end).toBe(600);
  const sprite = await expectImage(await image(playbackId, 'storyboard.png'), 'png', { width: 640, height: 180 });
  const coldMs = Math.round(performance.now() - started);
  testInfo.annotations.push({ type: 'timing', description: `10-minute storyboard (50 keyframe seeks, 64x36 tiles): ${coldMs} ms from the VTT request to the sprite` });
  cues.forEach((cue, index) => {
    // Luma 16 + 25·(index mod 8) → RGB grey of about 29·(index mod 8).
    const grey = Math.round(((25 * (index % 8)) * 255) / 219);
    const pixel = sprite.pixel(cue.x + Math.floor(cue.w / 2), cue.y + Math.floor(cue.h / 2));
    expect(isColor(pixel, [grey, grey, grey], 12), `tile ${index} (${cue.start} s) is ${pixel}, expected grey ${grey}`).toBe(true);
  });
});

test('second request comes from storage: identical bytes, fast; concurrent first requests share one generation', async ({
  playbackFixtures,
  playbackMedia,
}, testInfo) => {
  test.skip(isCluster(), 'counts the image files in one server\'s DATA_DIR; in a cluster the balancer spreads the requests over two nodes');
  const { playbackId, assetId } = await assetFor('colors', playbackFixtures.dir, (file) => playbackMedia.fileUrl(file));
  const timings: string[] = [];
  for (const [name, query] of [
    ['thumbnail.jpg', 'time=3.25&width=480'],
    ['animated.gif', 'start=2&end=3.5'],
    ['animated.webp', 'start=2&end=3.5'],
  ] as const) {
    const cold = await image(playbackId, name, query);
    const warm = await image(playbackId, name, query);
    expect(cold.status, cold.url).toBe(200);
    expect(warm.body.equals(cold.body), `${name} served twice identically`).toBe(true);
    expect(warm.ms, `${name}: warm ${warm.ms} ms vs cold ${cold.ms} ms`).toBeLessThan(Math.max(200, cold.ms));
    timings.push(`${name}?${query}: cold ${Math.round(cold.ms)} ms, warm ${Math.round(warm.ms)} ms`);
  }

  const imagesDir = path.join(server.dataDir, 'assets', assetId, 'images');
  const before = new Set(await readdir(imagesDir));
  const query = `time=${(Math.random() * 3).toFixed(3)}&width=123&height=77&fit_mode=crop`;
  const burst = await Promise.all(Array.from({ length: 6 }, () => image(playbackId, 'thumbnail.webp', query)));
  for (const response of burst) expect(response.body.equals(burst[0]!.body), 'every concurrent response is the same image').toBe(true);
  const added = (await readdir(imagesDir)).filter((file) => !before.has(file));
  expect(added, 'one new file, no temp files left').toEqual([expect.stringMatching(/^thumbnail-[0-9a-f]+\.webp$/)]);
  timings.push(`6 concurrent thumbnails: ${Math.round(Math.max(...burst.map((response) => response.ms)))} ms`);
  testInfo.annotations.push({ type: 'timing', description: timings.join('; ') });
});

test('bad parameters are a 400 that says why; unknown image names a 404', async ({ playbackFixtures, playbackMedia }) => {
  const { playbackId, asset } = await assetFor('colors', playbackFixtures.dir, (file) => playbackMedia.fileUrl(file));
  const badRequests: Array<[string, string, RegExp]> = [
    ['thumbnail.jpg', 'width=0', /width must be a whole number from 1 to 4096/],
    ['thumbnail.jpg', 'height=5000', /height/],
    ['thumbnail.jpg', 'width=abc', /width/],
    ['thumbnail.jpg', 'time=-1', /time/],
    ['thumbnail.jpg', 'fit_mode=zoom', /fit_mode must be one of preserve, stretch, crop, smartcrop, pad/],
    ['thumbnail.jpg', 'rotate=45', /rotate/],
    ['thumbnail.jpg', 'flip_h=maybe', /flip_h/],
    ['thumbnail.jpg', 'latest=true', /live streams/],
    ['animated.gif', 'start=0&end=20', /0.25 to 10 seconds/],
    ['animated.gif', 'start=1&end=1.1', /0.25 to 10 seconds/],
    ['animated.gif', 'width=641', /width must be a whole number from 1 to 640/],
    ['animated.webp', 'fps=60', /fps/],
    ['animated.gif', 'start=30&end=31', /before the end of the video/],
    ['storyboard.vtt', 'format=gif', /format must be one of jpg, png, webp/],
  ];
  for (const [name, query, message] of badRequests) {
    const fetched = await image(playbackId, name, query);
    await expectError(fetched, 400, 'invalid_parameters', message);
    expect(fetched.headers.get('cache-control')).toBe('no-store');
  }
  for (const name of ['thumbnail.gif', 'thumbnail.bmp', 'animated.jpg', 'storyboard.gif', 'poster.jpg']) {
    expect((await image(playbackId, name)).status, name).toBe(404);
  }
  expect(Number(asset.duration)).toBeGreaterThan(3.9);
});

test('status codes: 404 unknown or deleted, 400 malformed, 412 preparing or errored, 404 for an audio-only asset; deleting removes the images', async ({
  media,
  fixtures,
  playbackFixtures,
  playbackMedia,
}) => {
  test.skip(isCluster(), 'checks that deleting removes the images from one server\'s DATA_DIR');
  const names = ['thumbnail.jpg', 'animated.gif', 'storyboard.jpg', 'storyboard.vtt', 'storyboard.json'];
  const unknown = randomBytes(24).toString('hex');
  for (const name of names) await expectError(await image(unknown, name), 404, 'not_found');
  for (const name of names) expect((await image('bad!id', name)).status, name).toBe(400);

  const preparing = await api.createAsset({ inputs: [{ url: media.slowUrl(fixtures.file('video720p')) }], playback_policies: ['public'] });
  for (const name of names) await expectError(await image(preparing.playback_ids[0].id, name), 412, 'failed_request');
  const broken = await api.createAsset({ inputs: [{ url: media.fileUrl(fixtures.file('corrupt')) }], playback_policies: ['public'] });
  expect((await api.waitForStatus(broken.id, ['ready', 'errored'])).status).toBe('errored');
  for (const name of names) await expectError(await image(broken.playback_ids[0].id, name), 412, 'failed_request');

  await playbackFixtures.ensure('audioOnly');
  const audio = await createPlayableAsset(api, playbackMedia.fileUrl(playbackFixtures.file('audioOnly')));
  for (const name of names) await expectError(await image(audio.playbackId, name), 404, 'not_found', /no video track/);

  // Images live in the asset's folder and go with it.
  const doomed = await createPlayableAsset(api, playbackMedia.fileUrl(path.basename(await ensureImageFixture(playbackFixtures.dir, 'colors'))));
  expect((await image(doomed.playbackId, 'thumbnail.jpg', 'width=32')).status).toBe(200);
  const imagesDir = path.join(server.dataDir, 'assets', doomed.assetId, 'images');
  expect(await readdir(imagesDir)).toHaveLength(1);
  expect((await api.delete(`/video/v1/assets/${doomed.assetId}`)).status).toBe(204);
  for (const name of names) await expectError(await image(doomed.playbackId, name), 404, 'not_found');
  await expect(readdir(imagesDir)).rejects.toThrow(/ENOENT/);
});

test('signed playback ID: parameters come from the token claims, the audience must match, storyboard URLs carry the token', async ({
  playbackFixtures,
  playbackMedia,
}) => {
  const key = await mux.system.signingKeys.create();
  const keyOptions = { keyId: key.id, keySecret: key.private_key! };
  const file = path.basename(await ensureImageFixture(playbackFixtures.dir, 'colors'));
  const created = await api.createAsset({ inputs: [{ url: playbackMedia.fileUrl(file) }], playback_policies: ['signed'] });
  expect((await api.waitForStatus(created.id, ['ready', 'errored'], 120_000)).status).toBe('ready');
  const playbackId = created.playback_ids[0].id as string;

  await expectError(await image(playbackId, 'thumbnail.jpg'), 403, 'forbidden');
  const videoToken = await mux.jwt.signPlaybackId(playbackId, { ...keyOptions, type: 'video' });
  await expectError(await image(playbackId, 'thumbnail.jpg', `token=${videoToken}`), 403, 'forbidden');

  // time=2.5 (blue) and width=64 from the token; the query's time=0.5 (red) is ignored.
  const thumbnailToken = await mux.jwt.signPlaybackId(playbackId, { ...keyOptions, type: 'thumbnail', params: { time: '2.5', width: '64' } });
  const thumbnail = await expectImage(await image(playbackId, 'thumbnail.png', `time=0.5&token=${thumbnailToken}`), 'png', { width: 64, height: 36 }, { signed: true });
  expect(isColor(centre(thumbnail), SECOND_COLORS[2].rgb), `signed thumbnail centre ${centre(thumbnail)} is blue`).toBe(true);
  // mux-node's playback helpers send TOKEN.
  expect((await image(playbackId, 'thumbnail.png', `TOKEN=${thumbnailToken}`)).status).toBe(200);

  const gifToken = await mux.jwt.signPlaybackId(playbackId, { ...keyOptions, type: 'gif', params: { end: '1', fps: '5' } });
  await expectImage(await image(playbackId, 'animated.gif', `token=${gifToken}`), 'gif', { width: 320, height: 180 }, { signed: true });

  const storyboardToken = await mux.jwt.signPlaybackId(playbackId, { ...keyOptions, type: 'storyboard' });
  const cues = parseStoryboardVtt((await image(playbackId, 'storyboard.vtt', `token=${storyboardToken}`)).body.toString('utf8'));
  expect(cues).toHaveLength(50);
  expect(cues[0]?.url).toBe(server.url(`/${playbackId}/storyboard.jpg?token=${storyboardToken}`));
  await expectImage(await fetchBytes(cues[0]!.url), 'jpeg', { width: 2560, height: 720 }, { signed: true });
});
