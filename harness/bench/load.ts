import path from 'node:path';
import { SqliteAssetDb, type AssetDb, type AssetRow } from './asset-db';
import { pollEncodingLoad, type EncodingLoadSummary } from './encoding-load-poller';
import { getOk, keepAliveAgent } from '../http';
import { createAsset, type CreatedAsset } from './keyframe-api';
import type { KeyframeProcess } from '../keyframe-process';
import { startBenchServer, type AccessToken } from './bench-server';
import { NginxStaticFiles, type NginxFile } from './nginx-static-files';
import { parseMediaPlaylist, parseMultivariant } from '../hls-playlists';
import { runSimulatedViewer, type ViewerReport } from '../simulated-viewer';
import type { PacingPolicy } from '../viewer-model';
import { startStaticServer } from '../static-server';
import { errorMessage, percentile, round, sleep } from '../stats';

// Just-in-time encoding under load, on a server of its own with the default settings (prefetch on),
// as a new user meets it:
//  1. fresh: `assets` assets are created at once from one input; the moment the last is ready,
//     `viewersPerAsset` simulated viewers (simulated-viewer.ts) start on each, for `wallSeconds`
//     (nothing of them is encoded yet: the "made ready the moment before");
//  2. cached: every segment of every rung of those assets is fetched once (untimed), then the same
//     viewers play them again;
//  3. burst: `burstCreates` assets are created at once from the input; how long until the last is
//     ready.
// During 1 and 2, GET /api/encoding-load is polled for the encoder's queue, deadline misses and
// rung costs.

export type LoadOptions = { assets: number; viewersPerAsset: number; wallSeconds: number; burstCreates: number };

export const DEFAULT_LOAD_OPTIONS: LoadOptions = { assets: 10, viewersPerAsset: 5, wallSeconds: 60, burstCreates: 100 };

export type Spread = { count: number; p50: number | null; p90: number | null; p99: number | null; max: number | null };

export type ViewerPassResult = {
  viewers: number;
  wallSeconds: number;
  /** The longest video segment (the playlists' target duration): the fresh pass's p99 limit. */
  segmentSeconds: number | null;
  /** Stalls after the start of playback, all viewers. */
  stalls: number;
  stalledSeconds: number;
  viewersWithStalls: number;
  viewersStarted: number;
  viewersReachedEnd: number;
  viewersFetchedEverything: number;
  startupMs: Spread;
  videoFetchMs: Spread;
  /** Video fetches a viewer sent after its playback had started (what a stall depends on). */
  videoFetchAfterStartMs: Spread;
  audioFetchMs: Spread;
  /** Playlists and init segments. */
  otherFetchMs: Spread;
  /** Answers other than 200 and requests without an answer. */
  httpErrors: number;
  errorSamples: string[];
  /** Video segments fetched per rung, all viewers. */
  rungsPlayed: Record<string, number>;
  firstListed: string[];
  rungSwitches: number;
  /** Segments the server refused with a 429 (steering under load), each then fetched from a lower rung. */
  steeredSegments: number;
  encodingLoad: EncodingLoadSummary;
  /** Per viewer, for the JSON: asset, stalls, startup, rungs. */
  perViewer: Array<{
    asset: number;
    viewer: number;
    startupMs: number | null;
    stalls: number;
    stalledSeconds: number;
    reachedSeconds: number;
    segmentsByRung: Record<string, number>;
    errors: number;
    /** Each video segment as "rung/index status took ms at ms" (done, from the viewer's start): where a stall came from. */
    videoFetches: string[];
    switches: ViewerReport['switches'];
  }>;
};

export type CreateBurstResult = {
  creates: number;
  createErrors: number;
  /** First create sent → last 201 received. */
  createsMs: number | null;
  ready: number;
  errored: number;
  notReady: number;
  /** First create sent → the last asset seen ready (database polled every 50 ms); of those that became ready. */
  firstCreateToLastReadyMs: number | null;
  /** Server-side: latest readyAt − earliest createdAt. */
  serverFirstCreateToLastReadyMs: number | null;
  /** Per asset readyAt − createdAt. */
  perAssetReadyMs: Spread;
  errorSamples: string[];
};

export type LoadResult = {
  input: string;
  options: LoadOptions;
  /** The creates of the fresh pass. */
  creates: CreateBurstResult;
  fresh: ViewerPassResult;
  warmup: { ms: number; requests: number; errors: number; rungs: string[] };
  cached: ViewerPassResult;
  /** The cached pass again with nginx serving the same files; null when nginx was not available. */
  cachedOnNginx: ViewerPassResult | null;
  burst: CreateBurstResult;
};

export const spread = (values: number[]): Spread => ({
  count: values.length,
  p50: percentile(values, 50),
  p90: percentile(values, 90),
  p99: percentile(values, 99),
  max: values.length > 0 ? Math.max(...values) : null,
});

/**
 * Stalled seconds ÷ watched seconds (played + stalled) of the players that started: the worst one,
 * and all together.
 */
export const stalledShares = (players: ReadonlyArray<{ startupMs: number | null; reachedSeconds: number; stalledSeconds: number }>): { worst: number; all: number } => {
  let stalled = 0;
  let watched = 0;
  let worst = 0;
  for (const player of players) {
    if (player.startupMs === null) continue;
    const total = player.reachedSeconds + player.stalledSeconds;
    stalled += player.stalledSeconds;
    watched += total;
    if (total > 0) worst = Math.max(worst, player.stalledSeconds / total);
  }
  return { worst: round(worst, 4), all: watched > 0 ? round(stalled / watched, 4) : 0 };
};

const DB_POLL_MS = 50;
const READY_TIMEOUT_MS = 10 * 60_000;

type Settled = { assetId: string; row: AssetRow | null; seenAt: number };

/** Polls the database until every asset is ready or errored (or the timeout). */
const waitForSettled = async (db: AssetDb, assetIds: string[]): Promise<Settled[]> => {
  const settled = new Map<string, Settled>();
  const deadline = performance.now() + READY_TIMEOUT_MS;
  while (settled.size < assetIds.length && performance.now() < deadline) {
    for (const assetId of assetIds) {
      if (settled.has(assetId)) continue;
      const row = await db.row(assetId);
      if (row?.status === 'ready' || row?.status === 'errored') {
        settled.set(assetId, { assetId, row, seenAt: performance.now() });
      }
    }
    if (settled.size < assetIds.length) await sleep(DB_POLL_MS);
  }
  return Promise.all(assetIds.map(async (assetId) => settled.get(assetId) ?? { assetId, row: await db.row(assetId), seenAt: performance.now() }));
};

const summariseCreates = (startedAt: number, created: Array<CreatedAsset | Error>, createdAt: number | null, settled: Settled[]): CreateBurstResult => {
  const ok = settled.filter((entry) => entry.row?.status === 'ready');
  const errored = settled.filter((entry) => entry.row?.status === 'errored');
  const readyRows = ok.map((entry) => entry.row).filter((row): row is AssetRow => row !== null && row.readyAt !== null);
  const failures = created.filter((entry): entry is Error => entry instanceof Error);
  return {
    creates: created.length,
    createErrors: failures.length,
    createsMs: createdAt === null ? null : round(createdAt - startedAt, 0),
    ready: ok.length,
    errored: errored.length,
    notReady: settled.length - ok.length - errored.length + failures.length,
    firstCreateToLastReadyMs: ok.length > 0 ? round(Math.max(...ok.map((entry) => entry.seenAt)) - startedAt, 0) : null,
    serverFirstCreateToLastReadyMs:
      readyRows.length > 0 ? Math.max(...readyRows.map((row) => row.readyAt ?? 0)) - Math.min(...settled.map((entry) => entry.row?.createdAt ?? Infinity)) : null,
    perAssetReadyMs: spread(readyRows.map((row) => (row.readyAt ?? 0) - row.createdAt)),
    errorSamples: [
      ...failures.map((error) => `create: ${error.message}`),
      ...errored.map((entry) => `${entry.assetId}: ${entry.row?.errorType ?? ''} ${entry.row?.errorMessagesJson ?? ''}`),
    ].slice(0, 5),
  };
};

/** Creates `count` assets at once and waits until each is ready or errored. */
export const createAtOnce = async ({
  server,
  token,
  db,
  inputUrl,
  count,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  db: AssetDb;
  inputUrl: string;
  count: number;
}): Promise<{ result: CreateBurstResult; assets: Array<CreatedAsset | Error> }> => {
  const startedAt = performance.now();
  let lastCreatedAt: number | null = null;
  const created = await Promise.all(
    Array.from({ length: count }, () =>
      createAsset(server.baseUrl, token, inputUrl).then(
        (asset) => {
          lastCreatedAt = performance.now();
          return asset;
        },
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      ),
    ),
  );
  const assets = created.filter((entry): entry is CreatedAsset => !(entry instanceof Error));
  const settled = await waitForSettled(
    db,
    assets.map((asset) => asset.assetId),
  );
  return { result: summariseCreates(startedAt, created, lastCreatedAt, settled), assets: created };
};

export const summarisePass = (reports: Array<{ asset: number; viewer: number; report: ViewerReport }>, wallSeconds: number, segmentSeconds: number | null, encodingLoad: EncodingLoadSummary): ViewerPassResult => {
  const all = reports.map((entry) => entry.report);
  const fetches = all.flatMap((report) => report.fetches.filter((fetch) => fetch.status === 200));
  const errors = all.flatMap((report) => report.errors);
  const rungsPlayed: Record<string, number> = {};
  for (const report of all) for (const [rung, count] of Object.entries(report.segmentsByRung)) rungsPlayed[rung] = (rungsPlayed[rung] ?? 0) + count;
  const msOf = (kinds: string[]) => fetches.filter((fetch) => kinds.includes(fetch.kind)).map((fetch) => round(fetch.ms, 1));
  // `atMs` is when a fetch finished; it was sent `ms` earlier.
  const afterStart = all.flatMap((report) =>
    report.startupMs === null
      ? []
      : report.fetches.filter((fetch) => fetch.status === 200 && fetch.kind === 'video' && fetch.atMs - fetch.ms >= (report.startupMs ?? 0)),
  );
  return {
    viewers: all.length,
    wallSeconds,
    segmentSeconds,
    stalls: all.reduce((sum, report) => sum + report.stalls, 0),
    stalledSeconds: round(all.reduce((sum, report) => sum + report.stalledSeconds, 0), 1),
    viewersWithStalls: all.filter((report) => report.stalls > 0).length,
    viewersStarted: all.filter((report) => report.startupMs !== null).length,
    viewersReachedEnd: all.filter((report) => report.reachedEnd).length,
    viewersFetchedEverything: all.filter((report) => report.fetchedEverything).length,
    startupMs: spread(all.map((report) => report.startupMs).filter((value): value is number => value !== null).map((value) => round(value, 0))),
    videoFetchMs: spread(msOf(['video'])),
    videoFetchAfterStartMs: spread(afterStart.map((fetch) => round(fetch.ms, 1))),
    audioFetchMs: spread(msOf(['audio'])),
    otherFetchMs: spread(msOf(['multivariant', 'playlist', 'init'])),
    httpErrors: errors.length,
    errorSamples: [...new Set(errors.map((fetch) => `${fetch.kind} ${fetch.rendition} ${fetch.index ?? ''}: ${fetch.status || fetch.error}`))].slice(0, 5),
    rungsPlayed,
    firstListed: [...new Set(all.map((report) => report.firstListed))],
    rungSwitches: all.reduce((sum, report) => sum + report.switches.length, 0),
    steeredSegments: all.reduce((sum, report) => sum + report.switches.filter((move) => move.refused).length, 0),
    encodingLoad,
    perViewer: reports.map(({ asset, viewer, report }) => ({
      asset,
      viewer,
      startupMs: report.startupMs === null ? null : round(report.startupMs, 0),
      stalls: report.stalls,
      stalledSeconds: round(report.stalledSeconds, 2),
      reachedSeconds: round(report.reachedSeconds, 1),
      segmentsByRung: report.segmentsByRung,
      errors: report.errors.length,
      videoFetches: report.fetches
        .filter((fetch) => fetch.kind === 'video')
        .map((fetch) => `${fetch.rendition}/${fetch.index} ${fetch.status} took ${Math.round(fetch.ms)} at ${Math.round(fetch.atMs)}`),
      switches: report.switches,
    })),
  };
};

/** The longest video segment listed (the first listed variant's target duration). */
export const longestVideoSegmentSeconds = async (multivariantUrl: string): Promise<number | null> => {
  const multivariant = await getOk(multivariantUrl);
  const first = parseMultivariant(multivariant.body.toString('utf8'), multivariantUrl)[0];
  if (!first) return null;
  const playlist = (await getOk(first.uri)).body.toString('utf8');
  const target = /#EXT-X-TARGETDURATION:(\d+)/.exec(playlist)?.[1];
  return target === undefined ? null : Number(target);
};

/**
 * Fetches every segment of every rung (and the audio) of the assets once, two requests at a time
 * (one per core: the encodes are what takes time). The multivariant playlist is read again at the
 * end, in case it listed fewer rungs while the server was busy.
 */
export const warmLadders = async (
  baseUrl: string,
  playbackIds: string[],
  log: (line: string) => void,
): Promise<{ warmup: LoadResult['warmup']; urlPaths: string[] }> => {
  const startedAt = performance.now();
  const agent = keepAliveAgent(4);
  const warmed = new Set<string>();
  const everything = new Set<string>(playbackIds.map((playbackId) => `/${playbackId}.m3u8`));
  let requests = 0;
  let errors = 0;
  const rungs = new Set<string>();
  try {
    for (let pass = 1; pass <= 3; pass++) {
      const urls: string[] = [];
      for (const playbackId of playbackIds) {
        const multivariantUrl = `${baseUrl}/${playbackId}.m3u8`;
        const text = (await getOk(multivariantUrl, agent)).body.toString('utf8');
        const audio = /#EXT-X-MEDIA:TYPE=AUDIO[^\n]*URI="([^"]*)"/.exec(text)?.[1];
        const playlists = [...parseMultivariant(text, multivariantUrl).map((variant) => variant.uri), ...(audio ? [new URL(audio, multivariantUrl).toString()] : [])];
        for (const playlistUrl of playlists) {
          if (warmed.has(playlistUrl)) continue;
          warmed.add(playlistUrl);
          rungs.add(path.basename(new URL(playlistUrl).pathname, '.m3u8'));
          const parsed = parseMediaPlaylist((await getOk(playlistUrl, agent)).body.toString('utf8'), playlistUrl);
          urls.push(...(parsed.initUrl ? [parsed.initUrl] : []), ...parsed.segmentUrls);
        }
        for (const url of [...playlists]) everything.add(new URL(url).pathname);
      }
      if (urls.length === 0) break;
      log(`load: warming ${urls.length} files of ${playbackIds.length} assets (pass ${pass})…`);
      let next = 0;
      await Promise.all(
        Array.from({ length: 2 }, async () => {
          while (next < urls.length) {
            const url = urls[next++] ?? '';
            requests++;
            everything.add(new URL(url).pathname);
            try {
              await getOk(url, agent, false);
            } catch {
              errors++;
            }
          }
        }),
      );
    }
  } finally {
    agent.destroy();
  }
  return { warmup: { ms: round(performance.now() - startedAt, 0), requests, errors, rungs: [...rungs].sort() }, urlPaths: [...everything] };
};

// The cached pass's peer: the same viewers against nginx serving the very bytes Keyframe served
// (playlists as rendered, segments as stored), at the same paths with the same headers, so the
// fetch times say what the machine and the client allow, not only what Keyframe does.
const startNginxPeer = async (nginx: string, workDir: string, baseUrl: string, urlPaths: string[]): Promise<NginxStaticFiles> => {
  const agent = keepAliveAgent(4);
  const files: NginxFile[] = [];
  try {
    for (const urlPath of urlPaths) {
      const response = await getOk(`${baseUrl}${urlPath}`, agent);
      const header = (name: string) => {
        const value = response.headers[name];
        return Array.isArray(value) ? value.join(', ') : (value ?? null);
      };
      files.push({ urlPath, body: response.body, contentType: header('content-type') ?? 'application/octet-stream', cacheControl: header('cache-control') });
    }
  } finally {
    agent.destroy();
  }
  return NginxStaticFiles.start({ nginx, workDir, files });
};

export const runViewers = (
  baseUrl: string,
  playbackId: string,
  asset: number,
  count: number,
  wallSeconds: number,
  pacing?: PacingPolicy,
): Array<Promise<{ asset: number; viewer: number; report: ViewerReport }>> =>
  Array.from({ length: count }, (_, viewer) =>
    runSimulatedViewer({ multivariantUrl: `${baseUrl}/${playbackId}.m3u8`, wallSeconds, pacing }).then((report) => ({ asset, viewer, report })),
  );

export const measureLoadOnFreshServer = async ({
  env,
  input,
  options = DEFAULT_LOAD_OPTIONS,
  nginx,
  workDir,
  log,
}: {
  env: Record<string, string>;
  input: { label: string; path: string };
  options?: LoadOptions;
  /** nginx's binary, for the cached pass's peer; null: no peer. */
  nginx: string | null;
  workDir: string;
  log: (line: string) => void;
}): Promise<{ result: LoadResult; serverLogTail: string[] }> => {
  log('load: starting a fresh Keyframe server (default settings)…');
  const server = await startBenchServer({ env });
  const files = await startStaticServer({ 'load-input.mp4': input.path });
  const db = new SqliteAssetDb(server.dataDir);
  try {
    const token = await server.createToken();
    const inputUrl = files.url('load-input.mp4');
    const viewers = options.assets * options.viewersPerAsset;

    // 1. fresh: the viewers start the moment the assets are ready.
    log(`load: creating ${options.assets} assets at once; ${options.viewersPerAsset} viewers start on each the moment all are ready…`);
    const { result: creates, assets } = await createAtOnce({ server, token, db, inputUrl, count: options.assets });
    const playbackIds = assets.filter((asset): asset is CreatedAsset => !(asset instanceof Error)).map((asset) => asset.playbackId);
    const freshLoad = pollEncodingLoad({ baseUrl: server.baseUrl, token });
    const freshViewers = playbackIds.flatMap((playbackId, asset) => runViewers(server.baseUrl, playbackId, asset, options.viewersPerAsset, options.wallSeconds));
    log(`load: ${creates.ready}/${options.assets} ready, the last ${creates.firstCreateToLastReadyMs} ms after the first create; ${freshViewers.length} viewers running…`);
    const freshReports = await Promise.all(freshViewers);
    const freshEncoding = await freshLoad.stop();
    const firstPlaybackId = playbackIds[0];
    const segmentSeconds = firstPlaybackId ? await longestVideoSegmentSeconds(`${server.baseUrl}/${firstPlaybackId}.m3u8`).catch(() => null) : null;
    const fresh = summarisePass(freshReports, options.wallSeconds, segmentSeconds, freshEncoding);
    log(
      `load fresh: ${fresh.stalls} stall(s) (${fresh.stalledSeconds} s) in ${fresh.viewersWithStalls}/${viewers} viewers; startup p50 ${fresh.startupMs.p50} ms; ` +
        `video fetch p50/p90/p99 ${fresh.videoFetchMs.p50}/${fresh.videoFetchMs.p90}/${fresh.videoFetchMs.p99} ms, audio ${fresh.audioFetchMs.p50}/${fresh.audioFetchMs.p90}/${fresh.audioFetchMs.p99} ms; ` +
        `${fresh.httpErrors} HTTP errors; rungs ${JSON.stringify(fresh.rungsPlayed)}`,
    );

    // 2. cached: the same assets once every rung is on disk.
    const { warmup, urlPaths } = await warmLadders(server.baseUrl, playbackIds, log);
    log(`load: ladders cached in ${warmup.ms} ms (${warmup.requests} requests, ${warmup.errors} errors, rungs ${warmup.rungs.join(' ')})`);
    await sleep(2_000);
    const cachedLoad = pollEncodingLoad({ baseUrl: server.baseUrl, token });
    const cachedReports = await Promise.all(
      playbackIds.flatMap((playbackId, asset) => runViewers(server.baseUrl, playbackId, asset, options.viewersPerAsset, options.wallSeconds)),
    );
    const cached = summarisePass(cachedReports, options.wallSeconds, segmentSeconds, await cachedLoad.stop());
    log(
      `load cached: ${cached.stalls} stall(s) in ${cached.viewersWithStalls}/${cached.viewers} viewers; video fetch p50/p90/p99 ${cached.videoFetchMs.p50}/${cached.videoFetchMs.p90}/${cached.videoFetchMs.p99} ms, ` +
        `audio ${cached.audioFetchMs.p50}/${cached.audioFetchMs.p90}/${cached.audioFetchMs.p99} ms; ${cached.httpErrors} HTTP errors; rungs ${JSON.stringify(cached.rungsPlayed)}`,
    );

    // 2b. the same viewers on nginx serving the same bytes.
    let cachedOnNginx: ViewerPassResult | null = null;
    if (nginx) {
      log(`load: the cached pass again on nginx (${urlPaths.length} files)…`);
      const peer = await startNginxPeer(nginx, workDir, server.baseUrl, urlPaths);
      try {
        const peerReports = await Promise.all(
          playbackIds.flatMap((playbackId, asset) => runViewers(peer.baseUrl, playbackId, asset, options.viewersPerAsset, options.wallSeconds)),
        );
        cachedOnNginx = summarisePass(peerReports, options.wallSeconds, segmentSeconds, { available: false, reason: 'nginx has no encoder' });
      } finally {
        await peer.dispose();
      }
      log(
        `load cached on nginx: ${cachedOnNginx.stalls} stall(s); video fetch p50/p90/p99 ${cachedOnNginx.videoFetchMs.p50}/${cachedOnNginx.videoFetchMs.p90}/${cachedOnNginx.videoFetchMs.p99} ms, ` +
          `audio ${cachedOnNginx.audioFetchMs.p50}/${cachedOnNginx.audioFetchMs.p90}/${cachedOnNginx.audioFetchMs.p99} ms; ${cachedOnNginx.httpErrors} HTTP errors; rungs ${JSON.stringify(cachedOnNginx.rungsPlayed)}`,
      );
    }

    // 3. a burst of creates on the now idle server.
    await sleep(2_000);
    log(`load: ${options.burstCreates} creates at once…`);
    const { result: burst } = await createAtOnce({ server, token, db, inputUrl, count: options.burstCreates });
    log(
      `load burst: ${burst.ready}/${burst.creates} ready (${burst.errored} errored, ${burst.createErrors} create errors); first create → last ready ${burst.firstCreateToLastReadyMs} ms ` +
        `(server ${burst.serverFirstCreateToLastReadyMs} ms); per asset p50/p90 ${burst.perAssetReadyMs.p50}/${burst.perAssetReadyMs.p90} ms`,
    );
    return {
      result: { input: input.label, options, creates, fresh, warmup, cached, cachedOnNginx, burst },
      serverLogTail: server.logs().split('\n').filter(Boolean).slice(-20),
    };
  } catch (error) {
    log(`load failed: ${errorMessage(error)}`);
    throw error;
  } finally {
    await db.close();
    await files.close();
    await server.dispose();
  }
};

