import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AssetDb, AssetRow } from './asset-db';
import { basicAuth, HttpStatusError, request } from '../http';
import type { AccessToken, ServerNode } from './bench-server';
import { ffmpegDescendants } from '../processes';
import { sleep } from '../stats';

// The two API calls the benchmark makes, plus readiness read from the database.

export type CreatedAsset = { assetId: string; playbackId: string; postMs: number; postStartedAt: number };

export type ReadyAsset = CreatedAsset & {
  row: AssetRow;
  /** readyAt − createdAt, both written by the server. */
  serverMs: number;
  /** From just before the POST to the first 20 ms poll of the database that saw `ready`. */
  clientMs: number;
};

type CreateResponse = { data?: { id?: string; playback_ids?: Array<{ id?: string }> } };

export const createAsset = async (baseUrl: string, token: AccessToken, inputUrl: string): Promise<CreatedAsset> => {
  const url = `${baseUrl}/video/v1/assets`;
  const postStartedAt = performance.now();
  const response = await request({
    url,
    method: 'POST',
    headers: { authorization: basicAuth(token.id, token.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ url: inputUrl }], playback_policies: ['public'] }),
  });
  const text = response.body.toString('utf8');
  if (response.status !== 201) throw new HttpStatusError(response.status, url, text);
  const parsed = JSON.parse(text) as CreateResponse;
  const assetId = parsed.data?.id;
  const playbackId = parsed.data?.playback_ids?.[0]?.id;
  if (!assetId || !playbackId) throw new Error(`POST ${url} returned no asset or playback ID: ${text.slice(0, 300)}`);
  return { assetId, playbackId, postMs: response.ttlbMs, postStartedAt };
};

export const createReadyAsset = async (
  baseUrl: string,
  token: AccessToken,
  db: AssetDb,
  inputUrl: string,
): Promise<ReadyAsset> => {
  const created = await createAsset(baseUrl, token, inputUrl);
  const { row, seenAt } = await db.waitForReady(created.assetId, { pollMs: 20 });
  if (row.readyAt === null) throw new Error(`asset ${created.assetId} is ready but has no readyAt`);
  return { ...created, row, serverMs: row.readyAt - row.createdAt, clientMs: seenAt - created.postStartedAt };
};

export type SettleResult = { waitedMs: number; audioComplete: boolean; sawEncodes: boolean; timedOut: boolean };

/**
 * Work the server starts once an asset is ready (it encodes the audio rendition right away) would
 * compete for the CPU with the next measurement. Waits until the audio rendition's completion
 * marker exists and the server has had no ffmpeg child for a moment; a server without post-ready
 * work is recognised by neither appearing within two seconds. With several nodes, the work may run
 * on any of them.
 */
export const settleAfterReady = async (
  server: { nodes: readonly ServerNode[] },
  assetId: string,
  timeoutMs = 180_000,
): Promise<SettleResult> => {
  const markers = server.nodes.map((node) => path.join(node.dataDir, 'assets', assetId, 'hls', 'audio', 'complete.json'));
  const startedAt = performance.now();
  let sawEncodes = false;
  let idleSince = performance.now();
  for (;;) {
    const now = performance.now();
    const busy = server.nodes.some((node) => node.pid !== undefined && ffmpegDescendants(node.pid).length > 0);
    if (busy) {
      sawEncodes = true;
      idleSince = now;
    }
    const idleMs = now - idleSince;
    const audioComplete = markers.some((marker) => existsSync(marker));
    const done =
      (audioComplete && idleMs >= 300) || (!sawEncodes && !audioComplete && now - startedAt >= 2_000) || (sawEncodes && idleMs >= 1_500);
    if (done || now - startedAt > timeoutMs) {
      return { waitedMs: now - startedAt, audioComplete, sawEncodes, timedOut: !done };
    }
    await sleep(50);
  }
};

export const segmentFileOnDisk = (dataDir: string, assetId: string, rendition: string, file: string): boolean =>
  existsSync(path.join(dataDir, 'assets', assetId, 'hls', rendition, file));
