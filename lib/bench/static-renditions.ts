import type { AssetDb } from './asset-db';
import { basicAuth, HttpStatusError, request } from './http';
import { createReadyAsset, settleAfterReady } from './keyframe-api';
import type { AccessToken, KeyframeServer } from './keyframe-server';
import { round } from './stats';
import type { WebhookReceiver } from './webhook-receiver';

// Request → `ready` of highest.mp4 for a fresh asset, twice: cold (none of the top rung's segments
// encoded yet: the build encodes them all at background priority, then remuxes) and cached (the
// file deleted and requested again: the segments from the first build are on disk, so it is the
// remux alone). Both timed from just before the POST to the arrival of the
// video.asset.static_rendition.ready webhook, as an integrator would see it.

const READY_TIMEOUT_MS = 60 * 60_000;

export type StaticRenditionBuild = { renditionId: string; readyMs: number; fileBytes: number | null; width: number | null; height: number | null };

export type StaticRenditionsResult = {
  input: string;
  durationSeconds: number;
  cold: StaticRenditionBuild;
  cached: StaticRenditionBuild;
  coldToCachedRatio: number | null;
};

type FileJson = { id?: string; status?: string; width?: number; height?: number; filesize?: string };

const api = async (server: KeyframeServer, token: AccessToken, method: string, pathname: string, body?: unknown) => {
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

const buildHighest = async (server: KeyframeServer, token: AccessToken, webhooks: WebhookReceiver, assetId: string): Promise<StaticRenditionBuild> => {
  const startedAt = performance.now();
  const created = (await api(server, token, 'POST', `/video/v1/assets/${assetId}/static-renditions`, { resolution: 'highest' })).data as FileJson;
  if (!created.id) throw new Error('POST static-renditions returned no id');
  const arrival = await webhooks.waitFor('video.asset.static_rendition.ready', created.id, READY_TIMEOUT_MS);
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
  server: KeyframeServer;
  token: AccessToken;
  db: AssetDb;
  webhooks: WebhookReceiver;
  input: { label: string; url: string; durationSeconds: number };
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
  return {
    input: input.label,
    durationSeconds: input.durationSeconds,
    cold,
    cached,
    coldToCachedRatio: cached.readyMs > 0 ? round(cold.readyMs / cached.readyMs, 2) : null,
  };
};
