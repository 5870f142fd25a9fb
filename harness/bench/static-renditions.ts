import { mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AssetDb } from './asset-db';
import { ownDirectory, releaseDirectory, runCommand } from '../processes';
import { basicAuth, HttpStatusError, request } from '../http';
import { createReadyAsset, settleAfterReady } from './keyframe-api';
import type { KeyframeProcess } from '../keyframe-process';
import type { AccessToken } from './bench-server';
import { round } from '../stats';
import type { WebhookReceiver } from '../webhook-receiver';

// Request → `ready` of highest.mp4 for a fresh asset, twice: cold (none of the top rung's segments
// encoded yet: the build encodes them all at background priority, then remuxes) and cached (the
// file deleted and requested again: the segments from the first build are on disk, so it is the
// remux alone). Both timed from just before the POST to the arrival of the
// video.asset.static_rendition.ready webhook, as an integrator would see it.

const READY_TIMEOUT_MS = 60 * 60_000;

export type StaticRenditionBuild = { renditionId: string; readyMs: number; fileBytes: number | null; width: number | null; height: number | null };

/** The peer: one plain ffmpeg run encoding the same source to a 1080p progressive MP4. */
export type PlainFfmpegMp4 = { ms: number; fileBytes: number; args: string };

export type StaticRenditionsResult = {
  input: string;
  durationSeconds: number;
  cold: StaticRenditionBuild;
  cached: StaticRenditionBuild;
  coldToCachedRatio: number | null;
  plainFfmpeg: PlainFfmpegMp4 | null;
  /** Cold build ÷ plain ffmpeg: above 1 the just-in-time path is slower than encoding the file directly. */
  coldToPlainRatio: number | null;
};

// What a user without Keyframe would run: the server's 1080p rung settings (superfast, 4.5 Mb/s
// capped at 1.5×, 2 s GOP), AAC 128 kb/s, moov first. Same machine, same run, right after the builds.
const plainMp4Args = (inputPath: string, outputPath: string): string[] => [
  '-hide_banner', '-nostdin', '-v', 'error', '-y',
  '-i', inputPath,
  '-map', '0:v:0', '-map', '0:a:0?',
  '-vf', 'scale=1920:1080:flags=bicubic,format=yuv420p',
  '-c:v', 'libx264', '-preset', 'superfast', '-profile:v', 'high',
  '-b:v', '4500k', '-maxrate', '6750k', '-bufsize', '9000k',
  '-g', '60', '-keyint_min', '60', '-sc_threshold', '0',
  '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-ar', '48000',
  '-movflags', '+faststart',
  outputPath,
];

const measurePlainFfmpegMp4 = async (inputPath: string): Promise<PlainFfmpegMp4> => {
  const dir = ownDirectory(mkdtempSync(path.join(os.tmpdir(), 'keyframe-bench-mp4-')));
  try {
    const output = path.join(dir, 'plain.mp4');
    const args = plainMp4Args(inputPath, output);
    const result = await runCommand('ffmpeg', args, { timeoutMs: READY_TIMEOUT_MS });
    if (result.code !== 0) throw new Error(`plain ffmpeg MP4 encode failed: ${result.stderr.slice(-400)}`);
    return { ms: round(result.wallMs, 0), fileBytes: statSync(output).size, args: `ffmpeg ${args.join(' ')}` };
  } finally {
    releaseDirectory(dir);
  }
};

type FileJson = { id?: string; status?: string; width?: number; height?: number; filesize?: string };

const api = async (server: KeyframeProcess, token: AccessToken, method: string, pathname: string, body?: unknown) => {
  const url = `${server.baseUrl}${pathname}`;
  const response = await request({
    url,
    method,
    headers: { authorization: basicAuth(token.id, token.secret), ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = response.body.toString('utf8');
  if (response.status >= 300) throw new HttpStatusError(response.status, url, text);
  return text ? (JSON.parse(text) as { data?: unknown }) : {};
};

const buildHighest = async (server: KeyframeProcess, token: AccessToken, webhooks: WebhookReceiver, assetId: string): Promise<StaticRenditionBuild> => {
  const startedAt = performance.now();
  const created = (await api(server, token, 'POST', `/video/v1/assets/${assetId}/static-renditions`, { resolution: 'highest' })).data as FileJson;
  if (!created.id) throw new Error('POST static-renditions returned no id');
  const arrival = await webhooks.arrival('video.asset.static_rendition.ready', created.id, READY_TIMEOUT_MS);
  if (!arrival) throw new Error(`highest.mp4 of ${assetId} was not ready within ${READY_TIMEOUT_MS / 60_000} min`);
  const asset = (await api(server, token, 'GET', `/video/v1/assets/${assetId}`)).data as { static_renditions?: { files?: FileJson[] } };
  const file = asset.static_renditions?.files?.find((candidate) => candidate.id === created.id);
  return {
    renditionId: created.id,
    readyMs: round(arrival.arrivedAt - startedAt, 0),
    fileBytes: file?.filesize ? Number(file.filesize) : null,
    width: file?.width ?? null,
    height: file?.height ?? null,
  };
};

export const measureStaticRenditions = async ({
  server,
  token,
  db,
  webhooks,
  input,
  log,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  db: AssetDb;
  webhooks: WebhookReceiver;
  input: { label: string; url: string; path: string; durationSeconds: number };
  log: (line: string) => void;
}): Promise<StaticRenditionsResult> => {
  const asset = await createReadyAsset(server.baseUrl, token, db, input.url);
  // The audio track is encoded right after ready; both builds then find it stored.
  await settleAfterReady(server, asset.assetId);
  const cold = await buildHighest(server, token, webhooks, asset.assetId);
  log(`static renditions: highest.mp4 cold ${cold.readyMs} ms (${cold.width}x${cold.height}, ${cold.fileBytes} bytes)`);
  await api(server, token, 'DELETE', `/video/v1/assets/${asset.assetId}/static-renditions/${cold.renditionId}`);
  const cached = await buildHighest(server, token, webhooks, asset.assetId);
  log(`static renditions: highest.mp4 with its segments cached ${cached.readyMs} ms`);
  const plainFfmpeg = await measurePlainFfmpegMp4(input.path);
  log(`static renditions: plain ffmpeg 1080p MP4 ${plainFfmpeg.ms} ms`);
  return {
    input: input.label,
    durationSeconds: input.durationSeconds,
    cold,
    cached,
    coldToCachedRatio: cached.readyMs > 0 ? round(cold.readyMs / cached.readyMs, 2) : null,
    plainFfmpeg,
    coldToPlainRatio: plainFfmpeg.ms > 0 ? round(cold.readyMs / plainFfmpeg.ms, 2) : null,
  };
};
