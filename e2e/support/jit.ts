import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isFfmpeg, scalesToWidth, type ProcessEntry } from '../../harness/processes';
import { httpGet, parseMediaPlaylist, type MediaPlaylist } from './hls';
import { assetDirsOf, type KeyframeServer } from './keyframe-server';
import { decodeCheck, probeFrames } from './media-probe';
import { expect, loadMultivariant, multivariantUrl, type PlayableAsset } from './playback';

// What the just-in-time encoding specs (e2e/playback/jit*.spec.ts) observe from the outside: the
// segment files on disk (DATA_DIR/assets/<id>/hls, on every node), decodes of served segments, and
// the server's ffmpeg processes.

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

export type SegmentFile = { rung: string; index: number; file: string; size: number; ino: number; mtimeMs: number };

/** Every `<n>.m4s` of every video rung (everything under hls/ except audio/), on every node of the server. */
export const videoSegmentFiles = (server: KeyframeServer, assetId: string): SegmentFile[] =>
  assetDirsOf(server, assetId).flatMap((assetDir) => videoSegmentFilesIn(path.join(assetDir, 'hls')));

export const videoSegmentFilesIn = (hls: string): SegmentFile[] => {
  if (!existsSync(hls)) return [];
  const found: SegmentFile[] = [];
  for (const rung of readdirSync(hls)) {
    const dir = path.join(hls, rung);
    if (rung === 'audio' || !statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir)) {
      const match = name.match(/^(\d+)\.m4s$/);
      if (!match) continue;
      try {
        const info = statSync(path.join(dir, name));
        found.push({ rung, index: Number(match[1]), file: path.join(dir, name), size: info.size, ino: info.ino, mtimeMs: info.mtimeMs });
      } catch {
        // evicted while listing
      }
    }
  }
  return found;
};

/**
 * Files in the video rung folders (hls/<rung>/, not audio/) that are neither `<n>.m4s` nor
 * `init.mp4`: temp or partial outputs of an encode.
 */
export const strayVideoFiles = (server: KeyframeServer, assetId: string): string[] =>
  assetDirsOf(server, assetId).flatMap((assetDir) => strayVideoFilesIn(path.join(assetDir, 'hls')));

export const strayVideoFilesIn = (hls: string): string[] => {
  if (!existsSync(hls)) return [];
  const stray: string[] = [];
  for (const rung of readdirSync(hls)) {
    const dir = path.join(hls, rung);
    if (rung === 'audio' || !statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      const full = path.join(dir, name);
      if (existsSync(full) && statSync(full).isFile() && !/^(\d+\.m4s|init\.mp4)$/.test(name)) stray.push(`${rung}/${name}`);
    }
  }
  return stray;
};

export const waitUntilStable = async (read: () => string, { quietMs = 3_000, timeoutMs = 60_000 } = {}) => {
  const deadline = Date.now() + timeoutMs;
  let last = read();
  let since = Date.now();
  while (Date.now() < deadline) {
    await sleep(250);
    const now = read();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return;
    }
  }
};

export type Decoded = { ok: boolean; code: number | null; stderr: string; frames: number; firstPts: number; lastPts: number };

/** Decodes init + one segment (written to a file in `workDir`); reports errors and the frame count. */
export const decodeSegment = async (workDir: string, init: Buffer, segment: Buffer, label: string): Promise<Decoded> => {
  const file = path.join(workDir, `${label}-${Date.now()}-${Math.random().toString(36).slice(2)}.mp4`);
  await writeFile(file, Buffer.concat([init, segment]));
  const check = await decodeCheck(file);
  let frames: Awaited<ReturnType<typeof probeFrames>>['frames'] = [];
  try {
    frames = (await probeFrames(file, { select: 'v:0' })).frames;
  } catch {
    frames = [];
  }
  return {
    ok: check.code === 0 && check.stderr.trim() === '',
    code: check.code,
    stderr: check.stderr,
    frames: frames.length,
    firstPts: frames[0]?.pts ?? Number.NaN,
    lastPts: frames.at(-1)?.pts ?? Number.NaN,
  };
};

export type Rendition = { name: string; width: number; playlist: MediaPlaylist; init: Buffer; fps: number };

export const loadRendition = async (server: KeyframeServer, asset: PlayableAsset, name: string): Promise<Rendition> => {
  const multivariant = await loadMultivariant(multivariantUrl(server, asset.playbackId));
  const variant = multivariant.video.find((candidate) => candidate.name === name);
  expect(variant, `${name} in ${multivariant.text}`).toBeDefined();
  const response = await httpGet(variant!.url);
  expect(response.status, variant!.url).toBe(200);
  const playlist = parseMediaPlaylist(response.text, variant!.url);
  const init = await httpGet(playlist.map!.url);
  expect(init.status, playlist.map!.url).toBe(200);
  return { name, width: variant!.resolution!.width, playlist, init: init.body, fps: variant!.frameRate ?? 30 };
};

export const segmentStart = (playlist: MediaPlaylist, index: number) =>
  playlist.segments.slice(0, index).reduce((sum, segment) => sum + segment.duration, 0);

/** ffmpeg processes of this server encoding `assetId` at the rung's width. */
export const encoderFor = (assetId: string, width: number) => (entry: ProcessEntry) =>
  isFfmpeg(entry) && entry.command.includes(assetId) && scalesToWidth(entry, width);

export const seekOf = (entry: ProcessEntry): number => {
  const at = entry.argv.indexOf('-ss');
  return at === -1 ? 0 : Number(entry.argv[at + 1]);
};
