import type http from 'node:http';
import { parseMediaPlaylist, parseMultivariant, type Variant } from '../hls-playlists';
import type { AssetDb } from './asset-db';
import { getOk } from '../http';
import { createReadyAsset, segmentFileOnDisk, settleAfterReady } from './keyframe-api';
import type { AccessToken, Deployment } from './bench-server';
import { median, round } from '../stats';

// Cold and warm time-to-last-byte of segment 0 for every rung of the multivariant playlist, on
// fresh assets (a cold sample needs a segment nobody has requested yet). Two protocols per sample:
//  - player order ("init-first"): the multivariant playlist, then for each variant in listed order
//    its playlist, init.mp4, 0.m4s (cold) and 0.m4s again (warm). This is what the brief asks for
//    and what a player does for the first variant; the server may start work early (it starts
//    encoding the first variant's segment 0 when the multivariant playlist is requested, and an
//    init segment is a by-product of encoding segment 0), which the cold numbers then include.
//    The first variant is also timed end to end: multivariant request → last byte of segment 0.
//  - "segment-first", on a second fresh asset: 0.m4s of each rung before anything else of that
//    asset (no multivariant playlist, no init.mp4), so the cold time is the whole on-demand encode.

export type RungSample = {
  sample: number;
  rung: string;
  resolution: string | null;
  listedPosition: number;
  /** init-first protocol */
  initMs: number;
  initBytes: number;
  segment0OnDiskAfterInit: boolean;
  coldMs: number;
  warmMs: number;
  segmentBytes: number;
  /** segment-first protocol (second fresh asset) */
  coldDirectMs: number | null;
  warmDirectMs: number | null;
  initAfterDirectMs: number | null;
};

export type RungSummary = {
  rung: string;
  resolution: string | null;
  listedPosition: number;
  samples: number;
  initMs: number | null;
  coldMs: number | null;
  warmMs: number | null;
  coldDirectMs: number | null;
  initPlusColdMs: number | null;
  segment0OnDiskAfterInit: string;
  segmentBytes: number | null;
};

export type StartupSample = {
  sample: number;
  rung: string;
  /** multivariant request sent → last byte of segment 0 of the first variant, requests back to back */
  totalMs: number;
  multivariantMs: number;
  renditionPlaylistMs: number;
  initMs: number;
  segment0Ms: number;
};

export type SegmentsResult = {
  samples: number;
  /** Player-observed startup for the first-listed variant, per sample, and its median. */
  startup: { samples: StartupSample[]; medianTotalMs: number | null };
  assets: Array<{ sample: number; protocol: 'init-first' | 'segment-first'; assetId: string; playbackId: string; readyServerMs: number }>;
  multivariant: { url: string; ttlbMs: number[]; variants: Variant[]; text: string } | null;
  firstListed: {
    rung: string;
    resolution: string | null;
    consistentAcrossSamples: boolean;
    coldMs: number | null;
    coldDirectMs: number | null;
    initMs: number | null;
    initPlusColdMs: number | null;
    warmMs: number | null;
  } | null;
  rungs: RungSummary[];
  raw: RungSample[];
  /** A segment that can be requested warm afterwards (for the throughput test). */
  warmSegmentUrl: string | null;
};

const ms = (value: number) => round(value, 1);

const readPlayback = async (baseUrl: string, playbackId: string, agent: http.Agent) => {
  const url = `${baseUrl}/${playbackId}.m3u8`;
  const response = await getOk(url, agent);
  const text = response.body.toString('utf8');
  const variants = parseMultivariant(text, url);
  if (variants.length === 0) throw new Error(`the multivariant playlist lists no variants:\n${text}`);
  return { url, text, variants, ttlbMs: response.ttlbMs };
};

const renditionPlaylist = async (variant: Variant, agent: http.Agent) => {
  const response = await getOk(variant.uri, agent);
  const parsed = parseMediaPlaylist(response.body.toString('utf8'), variant.uri);
  const segment0 = parsed.segmentUrls[0];
  if (!parsed.initUrl || !segment0) throw new Error(`${variant.uri} has no EXT-X-MAP or no segments`);
  return { initUrl: parsed.initUrl, segment0, ttlbMs: response.ttlbMs };
};

export const measureSegments = async ({
  server,
  token,
  db,
  inputUrl,
  samples,
  agent,
  log,
}: {
  server: Deployment;
  token: AccessToken;
  db: AssetDb;
  inputUrl: string;
  samples: number;
  agent: http.Agent;
  log: (line: string) => void;
}): Promise<SegmentsResult> => {
  const raw: RungSample[] = [];
  const assets: SegmentsResult['assets'] = [];
  let multivariant: SegmentsResult['multivariant'] = null;
  const firstListedBySample: string[] = [];
  let warmSegmentUrl: string | null = null;

  const startup: StartupSample[] = [];

  for (let sample = 1; sample <= samples; sample++) {
    // player order on one fresh asset
    const asset = await createReadyAsset(server.baseUrl, token, db, inputUrl);
    assets.push({ sample, protocol: 'init-first', assetId: asset.assetId, playbackId: asset.playbackId, readyServerMs: ms(asset.serverMs) });
    await settleAfterReady(server, asset.assetId);
    const startupStartedAt = performance.now();
    const playback = await readPlayback(server.baseUrl, asset.playbackId, agent);
    if (multivariant === null) {
      multivariant = { url: playback.url, ttlbMs: [], variants: playback.variants, text: playback.text };
    }
    multivariant.ttlbMs.push(ms(playback.ttlbMs));
    firstListedBySample.push(playback.variants[0]?.rung ?? '');

    const bySample = new Map<string, RungSample>();
    for (const [position, variant] of playback.variants.entries()) {
      const { initUrl, segment0, ttlbMs: playlistMs } = await renditionPlaylist(variant, agent);
      const init = await getOk(initUrl, agent, false);
      const onDisk = segmentFileOnDisk(server.dataDir, asset.assetId, variant.rung, '0.m4s');
      const cold = await getOk(segment0, agent, false);
      const coldDoneAt = performance.now();
      const warm = await getOk(segment0, agent, false);
      if (position === 0) {
        warmSegmentUrl = segment0;
        startup.push({
          sample,
          rung: variant.rung,
          totalMs: ms(coldDoneAt - startupStartedAt),
          multivariantMs: ms(playback.ttlbMs),
          renditionPlaylistMs: ms(playlistMs),
          initMs: ms(init.ttlbMs),
          segment0Ms: ms(cold.ttlbMs),
        });
      }
      const entry: RungSample = {
        sample,
        rung: variant.rung,
        resolution: variant.resolution,
        listedPosition: position,
        initMs: ms(init.ttlbMs),
        initBytes: init.bytes,
        segment0OnDiskAfterInit: onDisk,
        coldMs: ms(cold.ttlbMs),
        warmMs: ms(warm.ttlbMs),
        segmentBytes: cold.bytes,
        coldDirectMs: null,
        warmDirectMs: null,
        initAfterDirectMs: null,
      };
      bySample.set(variant.rung, entry);
      raw.push(entry);
      log(
        `segments sample ${sample} ${variant.rung}: init ${entry.initMs} ms${onDisk ? ' (segment 0 already on disk after it)' : ''},` +
          ` seg 0 cold ${entry.coldMs} ms, warm ${entry.warmMs} ms, ${cold.bytes} B` +
          (position === 0 ? `; multivariant → seg 0 last byte ${startup.at(-1)?.totalMs} ms` : ''),
      );
    }

    // segment-first on a second fresh asset: no multivariant playlist, so nothing is started early
    const direct = await createReadyAsset(server.baseUrl, token, db, inputUrl);
    assets.push({ sample, protocol: 'segment-first', assetId: direct.assetId, playbackId: direct.playbackId, readyServerMs: ms(direct.serverMs) });
    await settleAfterReady(server, direct.assetId);
    for (const listed of playback.variants) {
      const variant = { ...listed, uri: `${server.baseUrl}/${direct.playbackId}/${encodeURIComponent(listed.rung)}.m3u8` };
      const { initUrl, segment0 } = await renditionPlaylist(variant, agent);
      const cold = await getOk(segment0, agent, false);
      const warm = await getOk(segment0, agent, false);
      const init = await getOk(initUrl, agent, false);
      const entry = bySample.get(variant.rung);
      if (entry) {
        entry.coldDirectMs = ms(cold.ttlbMs);
        entry.warmDirectMs = ms(warm.ttlbMs);
        entry.initAfterDirectMs = ms(init.ttlbMs);
      }
      log(`segments sample ${sample} ${variant.rung} (segment-first): seg 0 cold ${ms(cold.ttlbMs)} ms, warm ${ms(warm.ttlbMs)} ms, init after ${ms(init.ttlbMs)} ms`);
    }
  }

  const order = multivariant?.variants.map((variant) => variant.rung) ?? [];
  const rungs: RungSummary[] = order.map((rung, position) => {
    const mine = raw.filter((entry) => entry.rung === rung);
    const pick = (select: (entry: RungSample) => number | null) =>
      median(mine.map(select).filter((value): value is number => value !== null));
    const onDisk = mine.filter((entry) => entry.segment0OnDiskAfterInit).length;
    return {
      rung,
      resolution: mine[0]?.resolution ?? null,
      listedPosition: position,
      samples: mine.length,
      initMs: pick((entry) => entry.initMs),
      coldMs: pick((entry) => entry.coldMs),
      warmMs: pick((entry) => entry.warmMs),
      coldDirectMs: pick((entry) => entry.coldDirectMs),
      initPlusColdMs: pick((entry) => entry.initMs + entry.coldMs),
      segment0OnDiskAfterInit: `${onDisk}/${mine.length}`,
      segmentBytes: pick((entry) => entry.segmentBytes),
    };
  });
  const first = rungs[0];
  return {
    samples,
    startup: { samples: startup, medianTotalMs: median(startup.map((entry) => entry.totalMs)) },
    assets,
    multivariant,
    firstListed: first
      ? {
          rung: first.rung,
          resolution: first.resolution,
          consistentAcrossSamples: firstListedBySample.every((rung) => rung === first.rung),
          coldMs: first.coldMs,
          coldDirectMs: first.coldDirectMs,
          initMs: first.initMs,
          initPlusColdMs: first.initPlusColdMs,
          warmMs: first.warmMs,
        }
      : null,
    rungs,
    raw,
    warmSegmentUrl,
  };
};
