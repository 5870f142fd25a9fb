import path from 'node:path';
import { parseArgs } from 'node:util';
import { ALL_INPUTS, CLEAN_30, CLEAN_300, LOAD_INPUT, PLAYBACK_INPUTS, SHORT_SECONDS } from './bench-config';
import type { DeliveryOptions } from './delivery';
import { DEFAULT_CAPACITY_OPTIONS, type CapacityOptions } from './capacity';
import { DEFAULT_LIVE_OPTIONS, LIVE_CASES, LIVE_MODES, type LiveCase, type LiveOptions } from './live';
import type { LatencyMode } from './live-api';
import { DEFAULT_LOAD_OPTIONS, type LoadOptions } from './load';
import { FAULT_KINDS, parseFaultKinds } from '../chaos/faults';
import { DEFAULT_CHAOS_OPTIONS, type ChaosOptions } from '../chaos/run-chaos';
import type { BenchResults } from './bench-results';
import { TOPOLOGIES } from './scaled-deployment';

// The command line of `npm run bench`: what to measure and how often.

export const ONLY = ['time-to-ready', 'segments', 'delivery', 'cold-playback', 'upload-throughput', 'load', 'static-renditions', 'captions', 'live', 'collector', 'capacity', 'chaos', 'quality'] as const;
export type OnlyPart = (typeof ONLY)[number];

export const USAGE = `Usage: npm run bench -- [--quick | --skip-baseline | --only ${ONLY.join('|')}] [options]

  --quick        30 s inputs only; no 300 s inputs, cold playback or ffmpeg baseline (for iteration)
  --only time-to-ready
                 time-to-ready of every input (clean and camera-like, 30 s and 300 s, moov first and last;
                 the clean 30 s one also with 3 audio streams, to report what the extra tracks add)
  --only segments
                 cold and warm time to last byte of segment 0 of every rung, on fresh clean 30 s assets
  --only delivery
                 cached delivery side by side with nginx (and plain node): a segment, a media playlist
                 and the multivariant playlist under the same wrk load (about 3 min)
  --only cold-playback
                 hls.js in Chromium plays 60 s of a fresh asset: the clean and the camera-like 300 s input
  --only upload-throughput
                 the direct-upload section: a generated ~1.09 GB file uploaded as one PUT and as
                 32 MiB chunks, MB/s and the server's peak RSS (a few minutes)
  --only load    just-in-time encoding under load (about 10 min): 10 assets created at once and
                 50 simulated viewers on them the moment they are ready, the same viewers once every
                 rung is cached, then 100 creates at once
  --only static-renditions
                 request → ready of highest.mp4 for a fresh clean 300 s 1080p asset: cold (no segment
                 encoded yet) and again once its segments are cached (a few minutes)
  --only captions
                 auto-generated captions: CPU seconds and wall-clock time per audio second of the
                 server's pipeline (WAV extraction + PocketSphinx + cues) on festival speech and on
                 friday.mp4 from the shared media, with their word error rates (about a minute)
  --only live    live streaming on a server with RTMP and SRT ingest (about 24 min): glass-to-glass latency
                 and stalls of hls.js (default configuration) in Chromium for 60 s per latency mode and
                 ingest, publisher connect → playable playlist, simulcast to local RTMP receivers, stalls
                 across a 10 s publisher gap with and without a reconnect slate, generated live captions
                 (cue latency after the words were said, the live transcript's WER, the recogniser's CPU),
                 CPU per 720p30 and 1080p30 stream side by side with plain ffmpeg writing the same ladder,
                 how many concurrent streams hold real time, and hostile input (refused publishers, junk on
                 the RTMP port, malformed and failing simulcast targets, a slate URL that is not an image)
                 answered clearly while a watched broadcast and its good simulcast target go on
  --live-cases LIST
                 which parts of the live section run (comma-separated; default all:
                 ${LIVE_CASES.join(', ')}), e.g. --only live --live-cases slate
                 (about 3 min: three streams, each with a 10 s publisher gap) or --live-cases captions
                 (about 2 min: festival speech published to a captioned stream, reduced then standard)
                 or --live-cases hostile (about 1 min: ten hostile inputs, one after another, while one
                 broadcast is watched and restreamed to a good and two bad simulcast targets)
  --live-modes LIST
                 the latency modes the latency case plays (comma-separated; default all:
                 ${LIVE_MODES.join(', ')}), e.g. --only live --live-cases latency --live-modes low
  --only collector
                 the playback analytics collector (about 4 min): 1,000 mux-embed beacons/s for 30 s, a fifth
                 malformed, from 200 client addresses; answers, latency, every view written, server RSS
  --only capacity
                 the fresh-asset capacity curve (about 15 min): decode and per-rung encode CPU costs on the
                 idle machine (the physical limit), then for N = 1, 2, 4, 6, 8, 10 a server of its own, N
                 camera-like assets created at once and 5 viewers on each the moment they are ready
                 (playback starts on the first segment); the largest N again on cached ladders (control)
  --only quality picture quality per bit (about 15 min, no server): five kinds of content (animation, phone
                 camera, slides, grain, a dark scene), every just-in-time rung up to 1080p encoded per segment
                 as the server does with the fixed-average ladder of before, plus, premium and plus with
                 B-frames; bytes, peak segment against the declared BANDWIDTH, SSIM/PSNR, cold segment time.
                 Writes to --out (e.g. --out bench/quality)
  --only chaos   the chaos soak (about 15 min): a cluster of its own (nginx, 2 app nodes, 2 workers, a
                 private PostgreSQL and Redis, Swift S3 behind a fault proxy) under mixed load (creates,
                 chunked uploads, viewers, a broadcast, webhooks, API reads) while faults come one after
                 another: node kills, Redis and PostgreSQL restarts, the bucket stalled and answering 503,
                 a full disk, a frozen node; then the invariants (nothing lost, stuck, corrupted) and
                 recovery per fault kind
  --chaos-seconds S, --chaos-seed N, --chaos-kinds LIST
                 the chaos soak's length (default 600 s of faults and load), fault order, and which faults
                 (comma-separated; default all: ${FAULT_KINDS.join(', ')})
  --capacity-assets LIST, --capacity-viewers-per-asset N, --capacity-seconds S
                 the capacity curve's scale (default 1,2,4,6,8,10 assets, 5 viewers each, 50 s)
  --capacity-skip-control
                 leave out the control (the largest N again on cached ladders, minutes of warming)
  --capacity-skip-browser
                 leave out the check of the simulated viewers against hls.js in Chromium (2 fresh assets,
                 2 players each, next to as many simulated viewers on 2 other fresh assets)
  --captions-runs N
                 runs per captions input (default 3)
  --skip-baseline
                 full run without the ffmpeg baseline (it takes minutes)
  --runs N       time-to-ready runs per input (default 3)
  --samples N    fresh assets per cold/warm segment sample (default 3)
  --delivery-rounds N
                 Keyframe/nginx/node alternations per resource (default 3)
  --delivery-seconds S
                 length of one load run (default 5)
  --delivery-connections C
                 keep-alive connections of the load generator (default 32)
  --playback-runs N
                 cold playbacks per input (default 3)
  --upload-runs N
                 1 GiB uploads per method (default 3; 1 with --quick)
  --load-assets N, --load-viewers-per-asset N, --load-seconds S, --load-creates N
                 the load phase's scale (default 10 assets, 5 viewers each, 60 s, 100 creates)
  --wait-idle M  before each phase, wait up to M minutes until other work leaves the CPU quiet
                 (3 consecutive 1 s samples under 20 % busy); default 0 (just record the load)
  --scaled       also run time-to-ready and the cold/warm segments (whichever this run measures) on
                 Keyframe configured for scaling out: PostgreSQL (127.0.0.1:5432, a database of its
                 own), Redis (127.0.0.1:6379, a key prefix of its own) and S3 (an OpenStack Swift the
                 benchmark starts), after the embedded default; reports the medians side by side with
                 scaled ÷ embedded. Skipped, saying why, when PostgreSQL or Redis does not answer or
                 Swift cannot start. E.g. npm run bench -- --only time-to-ready --quick --scaled
  --scaled-topologies LIST
                 comma-separated: all (one process, KEYFRAME_ROLE=all) and/or http+worker (an app
                 node and a worker node); default all,http+worker
  --server-log-level LEVEL
                 LOG_LEVEL of the capacity servers (default warn; debug logs every encode with its wait,
                 run time and slack); with KEYFRAME_HARNESS_LOG_DIR=DIR in the environment every server's
                 log lines are also written to files there
  --out DIR      write results.json and results.md there instead of bench/
  --ingest-timings
                 run the server with LOG_LEVEL=info (instead of warn) and record its per-step
                 ingest timings (download, probe, decode check) with each time-to-ready sample
  --help         show this help`;

const positiveInt = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`--${name} must be a positive integer (got "${value}")`);
  return parsed;
};

/** The options of this run, or 'help' for --help. */
export const parseBenchOptions = (args: string[], defaultOutDir: string) => {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      'skip-baseline': { type: 'boolean', default: false },
      only: { type: 'string' },
      'upload-runs': { type: 'string' },
      'playback-runs': { type: 'string' },
      'delivery-rounds': { type: 'string' },
      'delivery-seconds': { type: 'string' },
      'delivery-connections': { type: 'string' },
      runs: { type: 'string' },
      'captions-runs': { type: 'string' },
      samples: { type: 'string' },
      'ingest-timings': { type: 'boolean', default: false },
      'wait-idle': { type: 'string' },
      'load-assets': { type: 'string' },
      'load-viewers-per-asset': { type: 'string' },
      'load-seconds': { type: 'string' },
      'load-creates': { type: 'string' },
      'capacity-assets': { type: 'string' },
      'capacity-viewers-per-asset': { type: 'string' },
      'capacity-seconds': { type: 'string' },
      'capacity-skip-browser': { type: 'boolean', default: false },
      'capacity-skip-control': { type: 'boolean', default: false },
      'chaos-seconds': { type: 'string' },
      'chaos-seed': { type: 'string' },
      'chaos-kinds': { type: 'string' },
      'live-cases': { type: 'string' },
      'live-modes': { type: 'string' },
      out: { type: 'string' },
      'server-log-level': { type: 'string' },
      scaled: { type: 'boolean', default: false },
      'scaled-topologies': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick ?? false;
  const onlyValue = values.only;
  if (onlyValue !== undefined && !(ONLY as readonly string[]).includes(onlyValue)) {
    throw new Error(`--only takes ${ONLY.join(', ')} (got "${onlyValue}")`);
  }
  const only = onlyValue as OnlyPart | undefined;
  const runsPart = (part: OnlyPart) => only === undefined || only === part;
  const mode: BenchResults['mode'] = only ?? (quick ? 'quick' : 'full');
  const uploadRuns = positiveInt(values['upload-runs'], quick ? 1 : 3, 'upload-runs');
  const outDir = path.resolve(values.out ?? defaultOutDir);
  const skipBaseline = quick || only !== undefined || (values['skip-baseline'] ?? false);
  const runs = positiveInt(values.runs, 3, 'runs');
  const samples = positiveInt(values.samples, 3, 'samples');
  const captionsRuns = positiveInt(values['captions-runs'], 3, 'captions-runs');
  const playbackRuns = positiveInt(values['playback-runs'], 3, 'playback-runs');
  const deliveryOptions: DeliveryOptions = {
    rounds: positiveInt(values['delivery-rounds'], 3, 'delivery-rounds'),
    seconds: positiveInt(values['delivery-seconds'], 5, 'delivery-seconds'),
    connections: positiveInt(values['delivery-connections'], 32, 'delivery-connections'),
    threads: 1,
    warmupSeconds: 1,
  };
  const loadOptions: LoadOptions = {
    assets: positiveInt(values['load-assets'], DEFAULT_LOAD_OPTIONS.assets, 'load-assets'),
    viewersPerAsset: positiveInt(values['load-viewers-per-asset'], DEFAULT_LOAD_OPTIONS.viewersPerAsset, 'load-viewers-per-asset'),
    wallSeconds: positiveInt(values['load-seconds'], DEFAULT_LOAD_OPTIONS.wallSeconds, 'load-seconds'),
    burstCreates: positiveInt(values['load-creates'], DEFAULT_LOAD_OPTIONS.burstCreates, 'load-creates'),
  };
  const capacityOptions: CapacityOptions = {
    assetCounts:
      values['capacity-assets'] === undefined
        ? DEFAULT_CAPACITY_OPTIONS.assetCounts
        : values['capacity-assets'].split(',').map((count) => positiveInt(count.trim(), 1, 'capacity-assets')),
    viewersPerAsset: positiveInt(values['capacity-viewers-per-asset'], DEFAULT_CAPACITY_OPTIONS.viewersPerAsset, 'capacity-viewers-per-asset'),
    wallSeconds: positiveInt(values['capacity-seconds'], DEFAULT_CAPACITY_OPTIONS.wallSeconds, 'capacity-seconds'),
    browserCheck: values['capacity-skip-browser'] ? null : DEFAULT_CAPACITY_OPTIONS.browserCheck,
    control: !values['capacity-skip-control'],
  };
  const chaosOptions: ChaosOptions = {
    ...DEFAULT_CHAOS_OPTIONS,
    durationSeconds: positiveInt(values['chaos-seconds'], DEFAULT_CHAOS_OPTIONS.durationSeconds, 'chaos-seconds'),
    seed: positiveInt(values['chaos-seed'], DEFAULT_CHAOS_OPTIONS.seed, 'chaos-seed'),
    kinds: values['chaos-kinds'] === undefined ? DEFAULT_CHAOS_OPTIONS.kinds : parseFaultKinds(values['chaos-kinds']),
  };
  const liveCases = values['live-cases'] === undefined ? DEFAULT_LIVE_OPTIONS.cases : values['live-cases'].split(',').map((name) => name.trim());
  const unknownLiveCase = liveCases.find((name) => !(LIVE_CASES as readonly string[]).includes(name));
  if (unknownLiveCase !== undefined || liveCases.length === 0) throw new Error(`--live-cases takes ${LIVE_CASES.join(', ')} (got "${values['live-cases']}")`);
  const liveModes = values['live-modes'] === undefined ? DEFAULT_LIVE_OPTIONS.modes : values['live-modes'].split(',').map((name) => name.trim());
  const unknownLiveMode = liveModes.find((name) => !(LIVE_MODES as readonly string[]).includes(name));
  if (unknownLiveMode !== undefined || liveModes.length === 0) throw new Error(`--live-modes takes ${LIVE_MODES.join(', ')} (got "${values['live-modes']}")`);
  const liveOptions: LiveOptions = { ...DEFAULT_LIVE_OPTIONS, cases: liveCases as LiveCase[], modes: liveModes as LatencyMode[] };
  const scaledRequested = values.scaled ?? false;
  const topologies = (values['scaled-topologies'] ?? 'all,http+worker').split(',').map((name) => name.trim());
  const unknownTopology = topologies.find((name) => !(TOPOLOGIES as readonly string[]).includes(name));
  if (unknownTopology !== undefined || topologies.length === 0) throw new Error(`--scaled-topologies takes ${TOPOLOGIES.join(', ')} (got "${values['scaled-topologies']}")`);
  const waitIdleMinutes = values['wait-idle'] === undefined ? 0 : Number(values['wait-idle']);
  if (!Number.isFinite(waitIdleMinutes) || waitIdleMinutes < 0) throw new Error('--wait-idle takes a number of minutes');

  // Which parts run. --quick: the 30 s inputs' time-to-ready, segments, delivery and uploads.
  const doReady = runsPart('time-to-ready');
  const doSegments = only === undefined || only === 'segments';
  const doDelivery = runsPart('delivery');
  const doUploads = runsPart('upload-throughput');
  const doPlayback = only === 'cold-playback' || (only === undefined && !quick);
  const doLoad = only === 'load' || (only === undefined && !quick);
  const doStatic = only === 'static-renditions' || (only === undefined && !quick);
  const doCaptions = only === 'captions' || (only === undefined && !quick);
  const doLive = only === 'live' || (only === undefined && !quick);
  const doCollector = only === 'collector' || (only === undefined && !quick);
  const doCapacity = only === 'capacity' || (only === undefined && !quick);
  const doChaos = only === 'chaos' || (only === undefined && !quick);
  const mainServer = doReady || doSegments || doDelivery || doStatic;
  const doScaled = scaledRequested && (doReady || doSegments);
  const readySpecs = doReady ? ALL_INPUTS.filter((spec) => !quick || spec.durationSeconds === SHORT_SECONDS) : [];
  const neededSpecs = [
    ...readySpecs,
    ...(doSegments || doDelivery ? [CLEAN_30] : []),
    ...(doPlayback ? PLAYBACK_INPUTS : []),
    ...(doLoad || doCapacity ? [LOAD_INPUT] : []),
    ...(doStatic ? [CLEAN_300] : []),
    ...(!skipBaseline ? [CLEAN_300] : []),
  ];
  const specs = ALL_INPUTS.filter((spec) => neededSpecs.includes(spec));
  return {
    quick,
    only,
    mode,
    uploadRuns,
    outDir,
    skipBaseline,
    runs,
    samples,
    captionsRuns,
    playbackRuns,
    deliveryOptions,
    loadOptions,
    capacityOptions,
    chaosOptions,
    liveOptions,
    scaledRequested,
    topologies,
    waitIdleMinutes,
    ingestTimings: values['ingest-timings'] ?? false,
    serverLogLevel: values['server-log-level'],
    parts: { doReady, doSegments, doDelivery, doUploads, doPlayback, doLoad, doStatic, doCaptions, doLive, doCollector, doCapacity, doChaos, mainServer, doScaled },
    readySpecs,
    specs,
  };
};

export type BenchOptions = Exclude<ReturnType<typeof parseBenchOptions>, 'help'>;
export type BenchParts = BenchOptions['parts'];
