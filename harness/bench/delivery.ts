import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AssetDb } from './asset-db';
import { getOk, type TimedResponse } from '../http';
import { createReadyAsset, settleAfterReady } from './keyframe-api';
import type { KeyframeProcess } from '../keyframe-process';
import type { AccessToken } from './bench-server';
import { runNodeLoad, runWrk, writeWrkScript, type LoadRun } from './load-generator';
import { NginxStaticFiles } from './nginx-static-files';
import { ownDirectory, releaseDirectory } from '../processes';
import { parseMediaPlaylist, parseMultivariant } from '../hls-playlists';
import type { StaticServer } from '../static-server';
import { errorMessage, median, ratio, round } from '../stats';
import type { SystemTool } from './system-tools';

// Cached delivery, side by side with nginx: the same bytes from Keyframe's playback URL and from an
// nginx the benchmark starts (see nginx.ts), under the same load (same generator, connections and
// duration), alternating Keyframe, nginx, plain node, Keyframe, nginx, plain node, … so drift in
// the machine's load hits all of them alike. Three resources of one fresh public asset, each
// requested once before (so Keyframe has it stored: "warm"):
//  - a media segment (segment 0 of the 540p rung, a few hundred KiB),
//  - that rung's media playlist,
//  - the multivariant playlist.
// The third column is the benchmark's own plain node:http + fs.createReadStream file server with
// the same files: what Node itself costs, so a gap to nginx splits into "Node" and "Keyframe's route".

export type DeliveryKind = 'segment' | 'rendition playlist' | 'multivariant playlist';
export type DeliveryServerName = 'keyframe' | 'nginx' | 'node';

export const DELIVERY_KINDS: DeliveryKind[] = ['segment', 'rendition playlist', 'multivariant playlist'];

export type DeliveryResource = {
  kind: DeliveryKind;
  /** Path on both servers (nginx serves the file at Keyframe's path). */
  urlPath: string;
  bytes: number;
  sha256: string;
  contentType: string;
  cacheControl: string | null;
  /** The same bytes on a second request (a playlist could, in principle, differ per request). */
  stable: boolean;
};

export type DeliveryRun = { kind: DeliveryKind; server: DeliveryServerName; round: number; load: LoadRun };

export type DeliveryServerSummary = {
  server: DeliveryServerName;
  rounds: number;
  /** Medians over the rounds. */
  requestsPerSecond: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  megabytesPerSecond: number | null;
  bytesPerRequest: number | null;
  errors: number;
};

export type DeliveryComparison = {
  kind: DeliveryKind;
  urlPath: string;
  bytes: number;
  servers: Partial<Record<DeliveryServerName, DeliveryServerSummary>>;
  /** Keyframe ÷ nginx: req/s (higher is better for Keyframe), p50 and p99 (lower is better). */
  vsNginx: { requestsPerSecond: number | null; p50: number | null; p99: number | null } | null;
  /** Keyframe ÷ nginx per round (req/s, p99): how steady the ratio was. */
  perRound: Array<{ round: number; requestsPerSecond: number | null; p99: number | null }>;
};

export type DeliveryResult = {
  asset: { assetId: string; playbackId: string; rung: string };
  loadGenerator: { tool: 'wrk' | 'node'; version: string; installedByBench: string | null; threads: number; connections: number; secondsPerRun: number; rounds: number; warmupSeconds: number; note: string | null };
  nginx: { available: true; path: string; version: string; installedByBench: string | null; config: string } | { available: false; reason: string };
  resources: DeliveryResource[];
  comparisons: DeliveryComparison[];
  runs: DeliveryRun[];
};

export type DeliveryOptions = { rounds: number; seconds: number; connections: number; threads: number; warmupSeconds: number };

const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');
const header = (response: TimedResponse, name: string): string | null => {
  const value = response.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
};

/** A fresh asset's three resources, each fetched twice from Keyframe (the second fetch is warm). */
const warmResources = async (server: KeyframeProcess, playbackId: string): Promise<{ rung: string; resources: Array<DeliveryResource & { body: Buffer }> }> => {
  const multivariantUrl = `${server.baseUrl}/${playbackId}.m3u8`;
  const multivariant = await getOk(multivariantUrl);
  const variants = parseMultivariant(multivariant.body.toString('utf8'), multivariantUrl);
  const variant = variants.find((entry) => entry.rung === '540p') ?? variants[0];
  if (!variant) throw new Error(`${multivariantUrl} lists no variant`);
  const rendition = await getOk(variant.uri);
  const { initUrl, segmentUrls } = parseMediaPlaylist(rendition.body.toString('utf8'), variant.uri);
  const segmentUrl = segmentUrls[0];
  if (!segmentUrl) throw new Error(`${variant.uri} lists no segment`);
  if (initUrl) await getOk(initUrl, undefined, false);
  const resources: Array<DeliveryResource & { body: Buffer }> = [];
  for (const [kind, url] of [
    ['segment', segmentUrl],
    ['rendition playlist', variant.uri],
    ['multivariant playlist', multivariantUrl],
  ] as const) {
    const first = await getOk(url);
    const second = await getOk(url);
    const parsed = new URL(url);
    if (parsed.search) throw new Error(`${url} carries a query string; the comparison needs plain public paths`);
    resources.push({
      kind,
      urlPath: parsed.pathname,
      body: second.body,
      bytes: second.body.length,
      sha256: sha256(second.body),
      contentType: header(second, 'content-type') ?? 'application/octet-stream',
      cacheControl: header(second, 'cache-control'),
      stable: sha256(first.body) === sha256(second.body),
    });
  }
  return { rung: variant.rung, resources };
};

const summarise = (runs: DeliveryRun[], server: DeliveryServerName): DeliveryServerSummary | undefined => {
  const mine = runs.filter((run) => run.server === server);
  if (mine.length === 0) return undefined;
  const pick = (select: (load: LoadRun) => number | null) => {
    const values = mine.map((run) => select(run.load)).filter((value): value is number => value !== null);
    const value = median(values);
    return value === null ? null : round(value, 2);
  };
  return {
    server,
    rounds: mine.length,
    requestsPerSecond: pick((load) => load.requestsPerSecond),
    p50Ms: pick((load) => load.latencyMs.p50),
    p99Ms: pick((load) => load.latencyMs.p99),
    megabytesPerSecond: pick((load) => load.megabytesPerSecond),
    bytesPerRequest: pick((load) => load.bytesPerRequest),
    errors: mine.reduce((sum, run) => sum + Object.values(run.load.errors).reduce((a, b) => a + b, 0), 0),
  };
};

export const measureDelivery = async ({
  server,
  token,
  db,
  inputUrl,
  workDir,
  staticServer,
  wrk,
  nginx,
  options,
  log,
}: {
  server: KeyframeProcess;
  token: AccessToken;
  db: AssetDb;
  inputUrl: string;
  workDir: string;
  staticServer: StaticServer;
  wrk: SystemTool;
  nginx: SystemTool;
  options: DeliveryOptions;
  log: (line: string) => void;
}): Promise<DeliveryResult> => {
  const asset = await createReadyAsset(server.baseUrl, token, db, inputUrl);
  await settleAfterReady(server, asset.assetId);
  const { rung, resources } = await warmResources(server, asset.playbackId);
  // Whatever the playlist requests started (segment 0 of the first variant) must not run during the load.
  await settleAfterReady(server, asset.assetId);
  log(
    `delivery: asset ${asset.assetId}, ${resources.map((resource) => `${resource.kind} ${resource.urlPath} (${resource.bytes} bytes)`).join(', ')}`,
  );

  const dir = ownDirectory(path.join(workDir, `delivery-${process.pid}`));
  mkdirSync(dir, { recursive: true });
  let nginxServer: NginxStaticFiles | undefined;
  try {
    // The plain node reference: the same bytes as files, from the benchmark's static file server.
    for (const resource of resources) {
      const file = path.join(dir, `${resource.kind.replace(/ /g, '-')}${path.extname(resource.urlPath)}`);
      writeFileSync(file, resource.body);
      staticServer.add(`delivery${resource.urlPath}`, file);
    }
    const nodeUrl = (resource: DeliveryResource) => staticServer.url(`delivery${resource.urlPath}`);

    let nginxInfo: DeliveryResult['nginx'];
    let nginxError = '';
    if (nginx.available) {
      try {
        nginxServer = await NginxStaticFiles.start({
          nginx: nginx.path,
          workDir,
          files: resources.map((resource) => ({ urlPath: resource.urlPath, body: resource.body, contentType: resource.contentType, cacheControl: resource.cacheControl })),
        });
      } catch (error) {
        // Keyframe's and node's numbers are still worth having; the report says why nginx is missing.
        nginxError = errorMessage(error);
      }
    }
    if (nginx.available && nginxServer) {
      nginxInfo = { available: true, path: nginx.path, version: nginx.version, installedByBench: nginx.installedByBench, config: nginxServer.config };
      // Same bytes, checked rather than assumed.
      for (const resource of resources) {
        const served = await getOk(`${nginxServer.baseUrl}${resource.urlPath}`);
        if (sha256(served.body) !== resource.sha256) throw new Error(`nginx served different bytes for ${resource.urlPath}`);
        if (header(served, 'content-type') !== resource.contentType) {
          throw new Error(`nginx sent Content-Type ${header(served, 'content-type')} for ${resource.urlPath} (Keyframe: ${resource.contentType})`);
        }
      }
      log(`delivery: nginx ${nginx.version} on ${nginxServer.baseUrl} serves the same bytes`);
    } else {
      const reason = nginx.available ? `${nginx.path} (${nginx.version}) did not start: ${nginxError.slice(0, 600)}` : nginx.reason;
      nginxInfo = { available: false, reason };
      log(`delivery: no nginx (${reason}); Keyframe and plain node only`);
    }

    const script = wrk.available ? writeWrkScript(dir) : null;
    const load = (url: string, seconds: number): Promise<LoadRun> =>
      wrk.available && script
        ? runWrk({ wrk: wrk.path, script, url, connections: options.connections, threads: options.threads, durationSeconds: seconds })
        : runNodeLoad({ url, connections: options.connections, durationSeconds: seconds });
    const servers: Array<{ name: DeliveryServerName; url: (resource: DeliveryResource) => string }> = [
      { name: 'keyframe', url: (resource) => `${server.baseUrl}${resource.urlPath}` },
      ...(nginxServer ? [{ name: 'nginx' as const, url: (resource: DeliveryResource) => `${nginxServer?.baseUrl ?? ''}${resource.urlPath}` }] : []),
      { name: 'node', url: nodeUrl },
    ];

    const runs: DeliveryRun[] = [];
    const comparisons: DeliveryComparison[] = [];
    for (const resource of resources) {
      // Uncounted: connections, caches and the JIT compiler of each server warm up.
      for (const entry of servers) await load(entry.url(resource), options.warmupSeconds);
      for (let round_ = 1; round_ <= options.rounds; round_++) {
        for (const entry of servers) {
          const result = await load(entry.url(resource), options.seconds);
          runs.push({ kind: resource.kind, server: entry.name, round: round_, load: result });
          log(
            `delivery ${resource.kind} round ${round_} ${entry.name}: ${result.requestsPerSecond} req/s, p50 ${result.latencyMs.p50} ms, ` +
              `p99 ${result.latencyMs.p99} ms${Object.values(result.errors).some((count) => count > 0) ? `, errors ${JSON.stringify(result.errors)}` : ''}`,
          );
        }
      }
      const mine = runs.filter((run) => run.kind === resource.kind);
      const summaries: DeliveryComparison['servers'] = {};
      for (const entry of servers) summaries[entry.name] = summarise(mine, entry.name);
      const keyframe = summaries.keyframe;
      const peer = summaries.nginx;
      comparisons.push({
        kind: resource.kind,
        urlPath: resource.urlPath,
        bytes: resource.bytes,
        servers: summaries,
        vsNginx:
          keyframe && peer
            ? {
                requestsPerSecond: ratio(keyframe.requestsPerSecond, peer.requestsPerSecond),
                p50: ratio(keyframe.p50Ms, peer.p50Ms),
                p99: ratio(keyframe.p99Ms, peer.p99Ms),
              }
            : null,
        perRound: peer
          ? Array.from({ length: options.rounds }, (_, index) => {
              const k = mine.find((run) => run.server === 'keyframe' && run.round === index + 1)?.load;
              const n = mine.find((run) => run.server === 'nginx' && run.round === index + 1)?.load;
              return {
                round: index + 1,
                requestsPerSecond: ratio(k?.requestsPerSecond ?? null, n?.requestsPerSecond ?? null),
                p99: ratio(k?.latencyMs.p99 ?? null, n?.latencyMs.p99 ?? null),
              };
            })
          : [],
      });
    }

    return {
      asset: { assetId: asset.assetId, playbackId: asset.playbackId, rung },
      loadGenerator: {
        tool: wrk.available ? 'wrk' : 'node',
        version: wrk.available ? wrk.version : `node:http keep-alive client (${process.version})`,
        installedByBench: wrk.available ? wrk.installedByBench : null,
        threads: wrk.available ? options.threads : 1,
        connections: options.connections,
        secondsPerRun: options.seconds,
        rounds: options.rounds,
        warmupSeconds: options.warmupSeconds,
        note: wrk.available
          ? null
          : `wrk unavailable (${wrk.reason}); the benchmark's node:http client generated the load instead. It shares the benchmark's ` +
            'process and the same cores, so it saturates long before nginx does: the nginx numbers (and the ratios) understate nginx.',
      },
      nginx: nginxInfo,
      resources: resources.map(({ body: _body, ...resource }) => resource),
      comparisons,
      runs,
    };
  } finally {
    await nginxServer?.dispose();
    releaseDirectory(dir);
  }
};
