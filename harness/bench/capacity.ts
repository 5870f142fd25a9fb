import { SqliteAssetDb } from './asset-db';
import { startBenchServer, type AccessToken } from './bench-server';
import { measureBrowserPlayers, type BrowserCheckResult } from './capacity-browser';
import { measureCodingCosts, type CodingCosts } from './coding-costs';
import { startCpuSplit, type CpuSplit } from './cpu-split';
import { pollEncodingLoad } from './encoding-load-poller';
import type { CreatedAsset } from './keyframe-api';
import { createAtOnce, longestVideoSegmentSeconds, runViewers, stalledShares, summarisePass, warmLadders, type CreateBurstResult, type ViewerPassResult } from './load';
import { startStaticServer } from '../static-server';
import { median, round, sleep } from '../stats';
import type { PacingPolicy } from '../viewer-model';

// The fresh-asset capacity curve: how many just-published assets, each opened by a handful of
// viewers the moment it is ready, the machine serves well, next to what it physically could.
// For each N, on a server of its own (default settings, as a new user runs it): N assets created at
// once from the camera-like 1080p input, and the moment the last is ready, `viewersPerAsset`
// simulated viewers start on each (simulated-viewer.ts: hls.js's fetch order, a 429 refetched from
// the next lower variant, one rung down when a segment took > 80 % of its duration, up when < 30 %).
// Playback starts when the first segment (and its audio) is in, as a player's does; a stall is the
// buffer running dry after that. The control: the same viewers on the largest N's assets once every
// rung is cached. The physical limit comes from coding-costs.ts, measured in the same run.

export type CapacityOptions = {
  assetCounts: number[];
  viewersPerAsset: number;
  wallSeconds: number;
  /** The simulated viewers checked against hls.js in Chromium at one N (see capacity-browser.ts); null: not checked. */
  browserCheck: { assets: number; playersPerAsset: number } | null;
  /** The largest N again on cached ladders (minutes of warming); false only for quick diagnostic runs. */
  control: boolean;
};

export const DEFAULT_CAPACITY_OPTIONS: CapacityOptions = {
  assetCounts: [1, 2, 4, 6, 8, 10],
  viewersPerAsset: 5,
  wallSeconds: 50,
  browserCheck: { assets: 2, playersPerAsset: 2 },
  control: true,
};

// Playback starts on the first segment; then, like hls.js, the buffer is filled to 10 s and kept
// there at real-time pace (at most 30 s ahead).
export const CAPACITY_PACING: PacingPolicy = { startupBufferSeconds: 0.001, paceAheadSeconds: 10, maxAheadSeconds: 30 };

export type CapacityStep = {
  assets: number;
  viewers: number;
  /** N ÷ the physical limit at the cheapest rung. */
  fractionOfLimit: number | null;
  creates: CreateBurstResult;
  pass: ViewerPassResult;
  /** Stalled seconds ÷ watched seconds (played + stalled), the worst started viewer, and all together. */
  worstStalledShare: number;
  stalledShare: number;
  /** Where the cores went during the pass; null where /proc cannot be read. */
  cpu: CpuSplit | null;
};

/**
 * The limit once serving is counted: the server's own CPU and the simulated viewers' (on the same
 * machine here) per fresh asset, the median over the steps, added to what ffmpeg needs per asset.
 */
export type BoxLimit = { servingCpuPerAsset: number; limitAssets: number };

export type CapacityResult = {
  input: string;
  options: CapacityOptions;
  costs: CodingCosts;
  steps: CapacityStep[];
  /** The largest N's viewers again once every rung of its assets is cached. */
  control: { assets: number; warmupMs: number; pass: ViewerPassResult; cpu: CpuSplit | null } | null;
  boxLimit: BoxLimit | null;
  /** hls.js in Chromium and the simulated viewers, each on fresh assets of a server of its own, at the same (small) N. */
  browserCheck: { assets: number; playersPerAsset: number; browser: BrowserCheckResult; simulated: ViewerPassResult } | null;
};

type FreshAssets = { baseUrl: string; serverPid: number; token: AccessToken; creates: CreateBurstResult; playbackIds: string[] };

export const describeCpu = (cpu: CpuSplit | null): string =>
  cpu ? `encoders ${cpu.encoders}, server ${cpu.server}, viewers ${cpu.viewers}, rest ${cpu.rest}, idle ${cpu.idle}` : 'not measured';

const describeStep = (step: CapacityStep): string => {
  const { pass } = step;
  const load = pass.encodingLoad.available ? `queue max ${pass.encodingLoad.maxQueued}, ${pass.encodingLoad.deadlineMisses} deadline misses` : 'no encoding load';
  return (
    `capacity N=${step.assets} (${step.fractionOfLimit ?? '?'} of the limit): startup p50/p90 ${pass.startupMs.p50}/${pass.startupMs.p90} ms ` +
    `(${pass.viewersStarted}/${pass.viewers} started); ${pass.stalls} stalls (${pass.stalledSeconds} s, worst ${round(step.worstStalledShare * 100, 1)} %); ` +
    `fetch p50/p99 ${pass.videoFetchMs.p50}/${pass.videoFetchMs.p99} ms; ${pass.steeredSegments} 429s; ${load}; rungs ${JSON.stringify(pass.rungsPlayed)}; ` +
    `cores: ${describeCpu(step.cpu)}`
  );
};

export const measureCapacity = async ({
  env,
  input,
  options = DEFAULT_CAPACITY_OPTIONS,
  log,
}: {
  env: Record<string, string>;
  input: { label: string; path: string; durationSeconds: number; width: number; height: number; frameRate: number };
  options?: CapacityOptions;
  log: (line: string) => void;
}): Promise<{ result: CapacityResult; serverLogTail: string[] }> => {
  log('capacity: measuring decode and per-rung encode costs on the idle machine…');
  const { costs } = await measureCodingCosts({ inputPath: input.path, width: input.width, height: input.height, frameRate: input.frameRate, durationSeconds: input.durationSeconds, log });
  log(`capacity: physical limit ${costs.limitAssets} fresh assets in real time at ${costs.cheapestRung} (decode ${costs.decodeCpuPerMediaSecond} CPU-s/s, ${costs.cores} cores)`);
  const files = await startStaticServer({ 'capacity-input.mp4': input.path });
  let serverLogTail: string[] = [];
  // N assets created at once on a server of its own; `use` runs the moment the last is ready.
  const onFreshAssets = async <T>(count: number, use: (fresh: FreshAssets) => Promise<T>): Promise<T> => {
    const server = await startBenchServer({ env });
    const db = new SqliteAssetDb(server.dataDir);
    try {
      const token = await server.createToken();
      const { result: creates, assets: created } = await createAtOnce({ server, token, db, inputUrl: files.url('capacity-input.mp4'), count });
      const playbackIds = created.filter((asset): asset is CreatedAsset => !(asset instanceof Error)).map((asset) => asset.playbackId);
      const result = await use({ baseUrl: server.baseUrl, serverPid: server.pid, token, creates, playbackIds });
      serverLogTail = server.logs().split('\n').filter(Boolean).slice(-20);
      return result;
    } finally {
      await db.close();
      await server.dispose();
    }
  };
  const simulatedPass = async ({ baseUrl, serverPid, token, playbackIds }: FreshAssets, viewersPerAsset: number): Promise<{ pass: ViewerPassResult; cpu: CpuSplit | null }> => {
    const poller = pollEncodingLoad({ baseUrl, token });
    const split = startCpuSplit(serverPid, costs.cores);
    const reports = await Promise.all(playbackIds.flatMap((playbackId, asset) => runViewers(baseUrl, playbackId, asset, viewersPerAsset, options.wallSeconds, CAPACITY_PACING)));
    const cpu = split.stop();
    const encodingLoad = await poller.stop();
    const segmentSeconds = playbackIds[0] ? await longestVideoSegmentSeconds(`${baseUrl}/${playbackIds[0]}.m3u8`).catch(() => null) : null;
    return { pass: summarisePass(reports, options.wallSeconds, segmentSeconds, encodingLoad), cpu };
  };

  const steps: CapacityStep[] = [];
  let control: CapacityResult['control'] = null;
  let browserCheck: CapacityResult['browserCheck'] = null;
  const largest = Math.max(...options.assetCounts);
  try {
    for (const assets of options.assetCounts) {
      await onFreshAssets(assets, async (fresh) => {
        const { pass, cpu } = await simulatedPass(fresh, options.viewersPerAsset);
        const shares = stalledShares(pass.perViewer);
        const step: CapacityStep = {
          assets,
          viewers: pass.viewers,
          fractionOfLimit: costs.limitAssets > 0 ? round(assets / costs.limitAssets, 2) : null,
          creates: fresh.creates,
          pass,
          worstStalledShare: shares.worst,
          stalledShare: shares.all,
          cpu,
        };
        steps.push(step);
        log(describeStep(step));
        if (!options.control || assets !== largest || control !== null) return;
        const { warmup } = await warmLadders(fresh.baseUrl, fresh.playbackIds, log);
        await sleep(2_000);
        const { pass: controlPass, cpu: controlCpu } = await simulatedPass(fresh, options.viewersPerAsset);
        control = { assets, warmupMs: warmup.ms, pass: controlPass, cpu: controlCpu };
        log(`capacity control (N=${assets}, cached): startup p50/p90 ${controlPass.startupMs.p50}/${controlPass.startupMs.p90} ms; ${controlPass.stalls} stalls; fetch p99 ${controlPass.videoFetchMs.p99} ms`);
      });
    }
    const check = options.browserCheck;
    if (check) {
      log(`capacity browser check: ${check.playersPerAsset} hls.js players on each of ${check.assets} fresh assets, then as many simulated viewers…`);
      const browser = await onFreshAssets(check.assets, (fresh) =>
        measureBrowserPlayers({ baseUrl: fresh.baseUrl, playbackIds: fresh.playbackIds, playersPerAsset: check.playersPerAsset, wallSeconds: options.wallSeconds, log }),
      );
      const { pass: simulated } = await onFreshAssets(check.assets, (fresh) => simulatedPass(fresh, check.playersPerAsset));
      browserCheck = { ...check, browser, simulated };
      log(
        `capacity browser check: hls.js startup p50/p90 ${browser.startupMs.p50}/${browser.startupMs.p90} ms, ${browser.stalls} stalls; ` +
          `simulated ${simulated.startupMs.p50}/${simulated.startupMs.p90} ms, ${simulated.stalls} stalls`,
      );
    }
  } finally {
    await files.close();
  }
  return { result: { input: input.label, options, costs, steps, control, boxLimit: boxLimitOf(costs, steps), browserCheck }, serverLogTail };
};

const boxLimitOf = (costs: CodingCosts, steps: CapacityStep[]): BoxLimit | null => {
  const perAsset = steps.flatMap((step) => (step.cpu ? [(step.cpu.server + step.cpu.viewers) / step.assets] : []));
  const servingCpuPerAsset = median(perAsset);
  if (servingCpuPerAsset === null || !(costs.continuousCheapestCpuPerMediaSecond > 0)) return null;
  return { servingCpuPerAsset: round(servingCpuPerAsset, 3), limitAssets: round(costs.cores / (costs.continuousCheapestCpuPerMediaSecond + servingCpuPerAsset), 2) };
};
