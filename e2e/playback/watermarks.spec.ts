import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Api, expectApiError, type Json } from '../support/api';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import type { KeyframeServer } from '../support/keyframe-server';
import { expect, loadMultivariant, multivariantUrl, test, type NamedVariant } from '../support/playback';
import type Mux from '@mux/mux-node';
import { disposeKeyframe, muxClient, startKeyframe } from '../support/test';
import { createUpload, sendToUploadUrl, waitForUploadStatus } from '../support/uploads';

// Watermarks (overlay_settings inputs) burned into the picture, checked on decoded pixels: the same
// source is ingested with and without a watermark, and a segment of the lowest and of the highest
// rung (and a thumbnail) of each is decoded to RGB. Inside the rectangle the Mux rules give, the
// watermarked picture is the plain one blended with the image (source·(1−a·opacity) +
// image·a·opacity); outside it the two pictures are the same; the rectangle covers the same part
// of the picture on both rungs. Bad images end the asset `errored`; bad settings are a 400.

const run = promisify(execFile);

let server: KeyframeServer;
let api: Api;
let mux: Mux;
let scratch: string;

test.beforeAll(async () => {
  server = await startKeyframe({ label: 'playback-watermarks' });
  const token = await server.createToken();
  api = new Api(server.baseUrl, token);
  mux = muxClient(server, token);
  scratch = await mkdtemp(path.join(os.tmpdir(), 'keyframe-watermarks-'));
});

test.afterAll(async () => {
  await disposeKeyframe(server);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const SOURCE = 'landscape720p' as const;
const GREEN = [0, 255, 0] as const;
const BLUE = [0, 0, 255] as const;
// 200×100: the left half opaque green, the right half fully transparent.
const PNG = 'wm_green_half_transparent_200x100.png';
const JPEG = 'wm_blue_64x64.jpg';
const TEXT = 'wm_not_an_image.txt';

const makeImages = async (dir: string): Promise<void> => {
  const ffmpeg = (...args: string[]) => run('ffmpeg', ['-hide_banner', '-v', 'error', '-nostdin', '-y', ...args]);
  if (!existsSync(path.join(dir, PNG))) {
    await ffmpeg(
      '-filter_complex',
      'color=c=0x00FF00:s=100x100,format=rgba[a];color=c=black@0:s=100x100,format=rgba[b];[a][b]hstack',
      '-frames:v', '1', path.join(dir, PNG),
    );
  }
  if (!existsSync(path.join(dir, JPEG))) await ffmpeg('-f', 'lavfi', '-i', 'color=c=0x0000FF:s=64x64', '-frames:v', '1', '-q:v', '2', path.join(dir, JPEG));
  if (!existsSync(path.join(dir, TEXT))) await writeFile(path.join(dir, TEXT), 'this is not an image\n');
};

// The Mux example: bottom right, 2% margins, 10% of the width, 60% opacity.
const MARK = { vertical_align: 'bottom', vertical_margin: '2%', horizontal_align: 'right', horizontal_margin: '2%', width: '10%', opacity: '60%' };
const OPACITY = 0.6;

type Rect = { x: number; y: number; width: number; height: number };
type Frame = { width: number; height: number; rgb: Buffer };

// Where the Mux rules put MARK's 2:1 image on a w×h picture (before the server's rounding to even pixels).
const markRect = (width: number, height: number): Rect => {
  const w = 0.1 * width;
  const h = w / 2;
  return { x: width - w - 0.02 * width, y: height - h - 0.02 * height, width: w, height: h };
};
const leftHalf = (rect: Rect): Rect => ({ ...rect, width: rect.width / 2 });
const rightHalf = (rect: Rect): Rect => ({ ...rect, x: rect.x + rect.width / 2, width: rect.width / 2 });
// Shrunk past the rounding and the scaler's soft edges; grown likewise for "outside".
const inset = (rect: Rect, by: number): Rect => ({ x: rect.x + by, y: rect.y + by, width: rect.width - 2 * by, height: rect.height - 2 * by });

const inRect = (x: number, y: number, rect: Rect) => x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height;

/** Mean absolute difference per channel value between `frame` and `expected(x, y, c)` over the pixels `where` selects. */
const meanAbsError = (frame: Frame, where: (x: number, y: number) => boolean, expected: (x: number, y: number, c: number) => number) => {
  let total = 0;
  let count = 0;
  for (let y = 0; y < frame.height; y++) {
    for (let x = 0; x < frame.width; x++) {
      if (!where(x, y)) continue;
      for (let c = 0; c < 3; c++) {
        total += Math.abs(frame.rgb[(y * frame.width + x) * 3 + c]! - expected(x, y, c));
        count++;
      }
    }
  }
  expect(count, 'the region holds pixels').toBeGreaterThan(0);
  return total / count;
};

const pixel = (frame: Frame, x: number, y: number, c: number) => frame.rgb[(y * frame.width + x) * 3 + c]!;

/** The box of the pixels where the two pictures differ clearly (the opaque part of the watermark). */
const differenceBox = (marked: Frame, plain: Frame): Rect => {
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let y = 0; y < marked.height; y++) {
    for (let x = 0; x < marked.width; x++) {
      let diff = 0;
      for (let c = 0; c < 3; c++) diff += Math.abs(pixel(marked, x, y, c) - pixel(plain, x, y, c));
      if (diff < 90) continue;
      left = Math.min(left, x);
      top = Math.min(top, y);
      right = Math.max(right, x + 1);
      bottom = Math.max(bottom, y + 1);
    }
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
};

const decodeFirstFrame = async (file: string, width: number, height: number): Promise<Frame> => {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(stdout.length, `one ${width}x${height} frame decoded from ${file}`).toBe(width * height * 3);
  return { width, height, rgb: stdout };
};

const fetchOk = async (url: string): Promise<Buffer> => {
  const response = await httpGet(url);
  expect(response.status, `GET ${url}: ${response.text.slice(0, 300)}`).toBe(200);
  return response.body;
};

/** The first frame of segment `index` of a rung: its init and media segment, decoded together. */
const segmentFrame = async (variant: NamedVariant, index: number, label: string): Promise<Frame> => {
  const playlist = parseMediaPlaylist((await httpGet(variant.url)).text, variant.url);
  const segment = playlist.segments[index];
  expect(playlist.map && segment, `${variant.url} lists an init and segment ${index}`).toBeTruthy();
  const file = path.join(scratch, `${label}-${variant.name}-${index}.mp4`);
  await writeFile(file, Buffer.concat([await fetchOk(playlist.map!.url), await fetchOk(segment!.url)]));
  return decodeFirstFrame(file, variant.resolution!.width, variant.resolution!.height);
};

const thumbnailFrame = async (playbackId: string, label: string): Promise<Frame> => {
  const file = path.join(scratch, `${label}-thumbnail.png`);
  await writeFile(file, await fetchOk(server.url(`/${playbackId}/thumbnail.png?time=5`)));
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file]);
  const [width, height] = stdout.trim().split(',').map(Number);
  return decodeFirstFrame(file, width!, height!);
};

const gifFrame = async (playbackId: string): Promise<Frame> => {
  const file = path.join(scratch, `${playbackId}.gif`);
  await writeFile(file, await fetchOk(server.url(`/${playbackId}/animated.gif?width=320`)));
  return decodeFirstFrame(file, 320, 180);
};

/** The first tile of the storyboard sprite. */
const storyboardTile = async (playbackId: string): Promise<Frame> => {
  const layout = JSON.parse((await fetchOk(server.url(`/${playbackId}/storyboard.json?format=png`))).toString('utf8')) as Json;
  const file = path.join(scratch, `${playbackId}-storyboard.png`);
  await writeFile(file, await fetchOk(server.url(`/${playbackId}/storyboard.png`)));
  const { tile_width: width, tile_height: height } = layout as { tile_width: number; tile_height: number };
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-vf', `crop=${width}:${height}:0:0`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(stdout.length).toBe(width * height * 3);
  return { width, height, rgb: stdout };
};

const createReady = async (body: Json): Promise<{ assetId: string; playbackId: string }> => {
  // Through @mux/mux-node: its types and request shape carry overlay_settings unchanged.
  const created = await mux.video.assets.create({ playback_policies: ['public'], ...body });
  const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 120_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  return { assetId: asset.id, playbackId: asset.playback_ids[0].id };
};

/** The pixel checks of one picture: blended inside, unchanged outside, where the Mux rules put it. */
const expectWatermarked = (marked: Frame, plain: Frame, what: string): Rect => {
  const { width, height } = marked;
  const rect = markRect(width, height);
  const opaque = inset(leftHalf(rect), 3);
  const clear = inset(rightHalf(rect), 3);
  const outside = inset(rect, -8);
  const blended = (x: number, y: number, c: number) => pixel(plain, x, y, c) * (1 - OPACITY) + GREEN[c]! * OPACITY;
  const inOpaque = meanAbsError(marked, (x, y) => inRect(x, y, opaque), blended);
  const plainInOpaque = meanAbsError(plain, (x, y) => inRect(x, y, opaque), blended);
  const inClear = meanAbsError(marked, (x, y) => inRect(x, y, clear), (x, y, c) => pixel(plain, x, y, c));
  const elsewhere = meanAbsError(marked, (x, y) => !inRect(x, y, outside), (x, y, c) => pixel(plain, x, y, c));
  const report = JSON.stringify({ what, inOpaque, plainInOpaque, inClear, elsewhere });
  // H.264 at these bitrates: a few levels of error on average; the watermark itself is ~100 levels.
  expect(inOpaque, `opaque part blended at 60%: ${report}`).toBeLessThan(12);
  expect(plainInOpaque, `without the watermark the region is far from the blend: ${report}`).toBeGreaterThan(25);
  expect(inClear, `transparent part shows the video: ${report}`).toBeLessThan(12);
  expect(elsewhere, `outside the watermark the picture is the plain one: ${report}`).toBeLessThan(4);
  test.info().annotations.push({ type: 'pixels', description: report });
  const box = differenceBox(marked, plain);
  const expected = leftHalf(rect);
  const tolerance = Math.max(3, width * 0.01);
  expect(Math.abs(box.x - expected.x), `${report} box ${JSON.stringify(box)} vs ${JSON.stringify(expected)}`).toBeLessThanOrEqual(tolerance);
  expect(Math.abs(box.y - expected.y), `box ${JSON.stringify(box)} vs ${JSON.stringify(expected)}`).toBeLessThanOrEqual(tolerance);
  expect(Math.abs(box.width - expected.width), `box ${JSON.stringify(box)} vs ${JSON.stringify(expected)}`).toBeLessThanOrEqual(tolerance);
  expect(Math.abs(box.height - expected.height), `box ${JSON.stringify(box)} vs ${JSON.stringify(expected)}`).toBeLessThanOrEqual(tolerance);
  return { x: box.x / width, y: box.y / height, width: box.width / width, height: box.height / height };
};

test('a PNG watermark with alpha is burned into the lowest and highest rungs, the thumbnail and highest.mp4, at the same relative place', async ({
  playbackFixtures,
  playbackMedia,
}) => {
  await makeImages(playbackFixtures.dir);
  const source = playbackMedia.fileUrl(path.basename(await playbackFixtures.ensure(SOURCE)));
  const [marked, plain] = await Promise.all([
    createReady({ inputs: [{ url: source }, { url: playbackMedia.fileUrl(PNG), overlay_settings: MARK }] }),
    createReady({ inputs: [{ url: source }] }),
  ]);

  const [markedLadder, plainLadder] = await Promise.all([marked, plain].map((asset) => loadMultivariant(multivariantUrl(server, asset.playbackId))));
  const bySize = (ladder: NamedVariant[]) => [...ladder].sort((a, b) => a.resolution!.width - b.resolution!.width);
  const rungs = bySize(markedLadder!.video);
  expect(rungs.length, 'a ladder with several rungs').toBeGreaterThan(1);
  const places: Rect[] = [];
  for (const rung of [rungs[0]!, rungs.at(-1)!]) {
    const plainRung = plainLadder!.video.find((variant) => variant.name === rung.name)!;
    const [markedFrame, plainFrame] = [await segmentFrame(rung, 1, 'marked'), await segmentFrame(plainRung, 1, 'plain')];
    places.push(expectWatermarked(markedFrame, plainFrame, `${rung.name} segment 1`));
  }
  places.push(expectWatermarked(await thumbnailFrame(marked.playbackId, 'marked'), await thumbnailFrame(plain.playbackId, 'plain'), 'thumbnail'));
  // The MP4 download is remuxed from the top rung's segments: its pictures carry the watermark too.
  const top = rungs.at(-1)!;
  expect((await api.post(`/video/v1/assets/${marked.assetId}/static-renditions`, { resolution: 'highest' })).status).toBe(201);
  const mp4Status = async () => (await api.get(`/video/v1/assets/${marked.assetId}`)).json.data.static_renditions?.files?.[0]?.status;
  await expect.poll(mp4Status, { timeout: 120_000, intervals: [1_100] }).toBe('ready');
  const mp4 = path.join(scratch, 'marked-highest.mp4');
  await writeFile(mp4, await fetchOk(server.url(`/${marked.playbackId}/highest.mp4`)));
  const plainTop = plainLadder!.video.find((variant) => variant.name === top.name)!;
  places.push(expectWatermarked(await decodeFirstFrame(mp4, top.resolution!.width, top.resolution!.height), await segmentFrame(plainTop, 0, 'plain'), 'highest.mp4'));
  // The same part of the picture on every rendition (relative position and size within ~1%).
  for (const place of places.slice(1)) {
    for (const key of ['x', 'y', 'width', 'height'] as const) expect(Math.abs(place[key] - places[0]![key]), JSON.stringify(places)).toBeLessThan(0.012);
  }
});

test('a JPEG watermark (opaque) at the top left, sized in px of the 1920×1080 frame: segments, thumbnail, GIF and storyboard', async ({ playbackFixtures, playbackMedia }) => {
  await makeImages(playbackFixtures.dir);
  const source = playbackMedia.fileUrl(path.basename(await playbackFixtures.ensure(SOURCE)));
  const settings = { width: '192px', horizontal_margin: '96px', vertical_margin: '54px' };
  const { playbackId, assetId } = await createReady({ inputs: [{ url: source }, { url: playbackMedia.fileUrl(JPEG), overlay_settings: settings }] });
  // input-info echoes every input, the watermark with its settings as submitted (alignment defaults filled in).
  const info = await api.get(`/video/v1/assets/${assetId}/input-info`);
  expect(info.status).toBe(200);
  expect(info.json.data).toHaveLength(2);
  expect(info.json.data[1].settings).toEqual({ url: playbackMedia.fileUrl(JPEG), overlay_settings: { vertical_align: 'top', horizontal_align: 'left', ...settings } });
  const ladder = await loadMultivariant(multivariantUrl(server, playbackId));
  const lowest = [...ladder.video].sort((a, b) => a.resolution!.width - b.resolution!.width)[0]!;
  const frames = [await segmentFrame(lowest, 0, 'jpeg'), await thumbnailFrame(playbackId, 'jpeg'), await gifFrame(playbackId), await storyboardTile(playbackId)];
  for (const frame of frames) {
    // 192 px of 1920 is a tenth of the width, square; margins 5% of the width and of the height.
    const rect = { x: 0.05 * frame.width, y: 0.05 * frame.height, width: 0.1 * frame.width, height: 0.1 * frame.width };
    const error = meanAbsError(frame, (x, y) => inRect(x, y, inset(rect, 3)), (_x, _y, c) => BLUE[c]!);
    expect(error, `${frame.width}x${frame.height}: solid blue where the JPEG is`).toBeLessThan(16);
    const left = meanAbsError(frame, (x, y) => inRect(x, y, { x: 0, y: rect.y + 3, width: rect.x - 3, height: rect.height - 6 }), (_x, _y, c) => BLUE[c]!);
    expect(left, 'not blue beside it').toBeGreaterThan(60);
  }
});

test('a direct upload whose settings list only a watermark: echoed as sent, burned into its picture', async ({ playbackFixtures, playbackMedia }) => {
  await makeImages(playbackFixtures.dir);
  const file = await playbackFixtures.ensure(SOURCE);
  const overlay = { url: playbackMedia.fileUrl(JPEG), overlay_settings: { vertical_align: 'middle', horizontal_align: 'center', width: '20%' } };
  const upload = await createUpload(api, { new_asset_settings: { inputs: [overlay], playback_policies: ['public'] } });
  // Echoed in Mux's wire form, the alignment defaults as they apply.
  expect(upload.new_asset_settings.inputs).toEqual([overlay]);
  const sent = await sendToUploadUrl(upload.url, { body: await readFile(file) });
  expect(sent.status, sent.text).toBeLessThan(300);
  const { asset_id: assetId } = await waitForUploadStatus(api, upload.id, ['asset_created']);
  const asset = await api.waitForStatus(assetId, ['ready', 'errored'], 120_000);
  expect(asset.status, JSON.stringify(asset.errors)).toBe('ready');
  const frame = await thumbnailFrame(asset.playback_ids[0].id, 'upload');
  // 20% wide, square, centred.
  const side = 0.2 * frame.width;
  const rect = { x: (frame.width - side) / 2, y: (frame.height - side) / 2, width: side, height: side };
  expect(meanAbsError(frame, (x, y) => inRect(x, y, inset(rect, 3)), (_x, _y, c) => BLUE[c]!), 'solid blue in the middle').toBeLessThan(16);
});

test('a watermark that is not a PNG or JPEG, or not there, errors the asset with the reason', async ({ playbackFixtures, playbackMedia }) => {
  await makeImages(playbackFixtures.dir);
  const source = playbackMedia.fileUrl(path.basename(await playbackFixtures.ensure(SOURCE)));
  const cases = [
    { url: playbackMedia.fileUrl(TEXT), type: 'invalid_input', message: /^inputs\[1\]: the watermark is not a PNG or JPEG image$/ },
    { url: playbackMedia.url('/missing'), type: 'download_failed', message: /^inputs\[1\]: the watermark could not be downloaded: .*404/ },
  ];
  await Promise.all(
    cases.map(async ({ url, type, message }) => {
      const created = await api.createAsset({ inputs: [{ url: source }, { url, overlay_settings: { width: '10%' } }], playback_policies: ['public'] });
      expect(created.status).toBe('preparing');
      const asset = await api.waitForStatus(created.id, ['ready', 'errored'], 60_000);
      expect(asset.status, JSON.stringify(asset)).toBe('errored');
      expect(asset.errors.type).toBe(type);
      expect(asset.errors.messages).toEqual([expect.stringMatching(message)]);
    }),
  );
});

test('bad watermark settings and URLs are a 400 naming the field', async ({ playbackFixtures, playbackMedia }) => {
  await makeImages(playbackFixtures.dir);
  const source = playbackMedia.fileUrl(path.basename(await playbackFixtures.ensure(SOURCE)));
  const image = playbackMedia.fileUrl(PNG);
  const create = (overlay: Json) => api.post('/video/v1/assets', { inputs: [{ url: source }, overlay], playback_policies: ['public'] });
  expectApiError(await create({ url: image, overlay_settings: { width: 'ten' } }), 400, 'invalid_parameters', /inputs\[1\]\.overlay_settings\.width/);
  expectApiError(await create({ url: image, overlay_settings: { opacity: '150%' } }), 400, 'invalid_parameters', /inputs\[1\]\.overlay_settings\.opacity/);
  expectApiError(await create({ url: image, overlay_settings: { vertical_align: 'centre' } }), 400, 'invalid_parameters', /inputs\[1\]\.overlay_settings\.vertical_align/);
  expectApiError(await create({ url: 'ftp://example.com/mark.png', overlay_settings: {} }), 400, 'invalid_parameters', /^inputs\[1\]\.url: .*http/);
  const upload = await api.post('/video/v1/uploads', {
    new_asset_settings: { inputs: [{ url: 'file:///etc/passwd', overlay_settings: {} }], playback_policies: ['public'] },
  });
  expectApiError(upload, 400, 'invalid_parameters', /^new_asset_settings\.inputs\[0\]\.url: /);
});
