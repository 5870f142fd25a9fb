import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openAssetDb, type AssetDb } from './asset-db';
import { runBaseline } from './baseline';
import { measureCaptions } from './captions';
import { measureColdPlaybackOnFreshServer } from './cold-playback';
import { DEFAULT_COLLECTOR_OPTIONS, measureCollectorOnFreshServer } from './collector';
import { DELIVERY_KINDS, measureDelivery, type DeliveryOptions } from './delivery';
import { keepAliveAgent } from './http';
import { measureIdleMemory } from './idle-memory';
import { DEFAULT_LIVE_OPTIONS, LIVE_LATENCY_TARGET_SECONDS, LIVE_MODES, livePlayableTargetMs, measureLiveOnFreshServer } from './live';
import { DEFAULT_LOAD_OPTIONS, measureLoadOnFreshServer, type LoadOptions } from './load';
import { ensureInput, inputLabel, type BenchInput, type InputSpec } from './inputs';
import { ensureProductionBuild, KeyframeServer } from './keyframe-server';
import { machineInfo, phaseMeter, sampleLoad, waitForQuiet, type LoadSnapshot, type PhaseCpu } from './machine';
import { installExitHandlers, killEverythingSync, runCommand } from './processes';
import { renderMarkdown, type BenchResults, type PhaseOutcome, type Target } from './report';
import { measureScaled } from './scaled';
import { TOPOLOGIES, type Topology } from './scaled-deployment';
import { measureSegments } from './segments';
import { measureStaticRenditions } from './static-renditions';
import { startStaticServer, type StaticServer } from './static-server';
import { errorMessage, formatMs, formatRatio, ratio, round } from './stats';
import { ensureSystemTool } from './system-tools';
import { measureTimeToReady, type ReadyInput } from './time-to-ready';
import { measureUploadThroughputOnFreshServer } from './upload-throughput';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

// `npm run bench` (full, ~20 min), `npm run bench -- --quick` (30 s inputs, no baseline, no cold
// playback) or `--only <part>` (one part alone; see USAGE).
// Progress goes to stderr; the markdown report to stdout, bench/results.md and bench/results.json.

const ONLY = ['time-to-ready', 'segments', 'delivery', 'cold-playback', 'upload-throughput', 'load', 'static-renditions', 'captions', 'live', 'collector'] as const;
type OnlyPart = (typeof ONLY)[number];

const USAGE = `Usage: npm run bench -- [--quick | --skip-baseline | --only ${ONLY.join('|')}] [options]

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
  --only live    live streaming on a server with RTMP ingest (about 15 min): glass-to-glass latency
                 and stalls of hls.js (default configuration) in Chromium for 60 s per latency mode,
                 publisher connect → playable playlist, CPU per 720p30 and 1080p30 stream side by side
                 with plain ffmpeg writing the same ladder, and how many concurrent streams hold real time
  --only collector
                 the playback analytics collector (about 4 min): 1,000 mux-embed beacons/s for 30 s, a fifth
                 malformed, from 200 client addresses; answers, latency, every view written, server RSS
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
  --out DIR      write results.json and results.md there instead of bench/
  --ingest-timings
                 run the server with LOG_LEVEL=info (instead of warn) and record its per-step
                 ingest timings (download, probe, decode check) with each time-to-ready sample
  --help         show this help`;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BENCH_DIR = path.join(REPO_ROOT, 'bench');
const WORK_DIR = path.join(BENCH_DIR, '.work');
// The sample media kept next to the repository (friday.mp4 for the captions); optional.
const SHARED_MEDIA_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'media');
const FFMPEG = 'ffmpeg';
const FFPROBE = 'ffprobe';
const SERVER_ENV = { PREFETCH_SEGMENTS: '0' };
const SHORT_SECONDS = 30;
const COLD_PLAYBACK_SECONDS = 60;
const LONG_SECONDS = 300;
const LIMITS = {
  timeToReady30Ms: 1_000,
  cameraTimeToReady30Ms: 700,
  cameraClientObservedMs: 1_000,
  ratio300To30: 1.3,
  coldSegment0Ms: 1_000,
  uploadPeakRssMB: 300,
  uploadRssGrowthMB: 50,
  deliveryRequestsPerSecondVsNginx: 0.5,
  deliveryP99VsNginx: 3,
};

// Every input, in the order time-to-ready interleaves them.
const CLEAN_30: InputSpec = { kind: 'clean', durationSeconds: SHORT_SECONDS, moov: 'first' };
// The clean 30 s file with two more audio streams (a mono AAC and a 5.1 AC-3 one): what the extra
// tracks add to time-to-ready, measured beside it.
const CLEAN_30_THREE_AUDIO: InputSpec = { ...CLEAN_30, audioTracks: 3 };
const CLEAN_300: InputSpec = { kind: 'clean', durationSeconds: LONG_SECONDS, moov: 'first' };
const CAMERA_30_FIRST: InputSpec = { kind: 'camera', durationSeconds: SHORT_SECONDS, moov: 'first' };
const CAMERA_30_LAST: InputSpec = { kind: 'camera', durationSeconds: SHORT_SECONDS, moov: 'last' };
const CAMERA_300_FIRST: InputSpec = { kind: 'camera', durationSeconds: LONG_SECONDS, moov: 'first' };
const CAMERA_300_LAST: InputSpec = { kind: 'camera', durationSeconds: LONG_SECONDS, moov: 'last' };
const ALL_INPUTS = [CLEAN_30, CLEAN_30_THREE_AUDIO, CAMERA_30_FIRST, CAMERA_30_LAST, CLEAN_300, CAMERA_300_FIRST, CAMERA_300_LAST];
// Cold playback: a camera file as a phone writes it (moov last) next to the clean one.
const PLAYBACK_INPUTS = [CLEAN_300, CAMERA_300_LAST];
// Load: a camera file as a phone writes it, short enough to be played to its end.
const LOAD_INPUT = CAMERA_30_LAST;
const LOAD_LIMITS = { cachedFetchP99Ms: 100, burstLastReadyMs: 60_000 };

const benchStartedAt = performance.now();
const log = (line: string) => process.stderr.write(`[bench +${((performance.now() - benchStartedAt) / 1000).toFixed(1)}s] ${line}\n`);

const positiveInt = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`--${name} must be a positive integer (got "${value}")`);
  return parsed;
};

const phaseCpu: PhaseCpu[] = [];

const phase = async <T>(name: string, run: () => Promise<T>): Promise<PhaseOutcome<T>> => {
  const meter = phaseMeter(name);
  try {
    return { status: 'ok', value: await run() };
  } catch (error) {
    log(`${name} failed: ${errorMessage(error)}`);
    return { status: 'error', error: errorMessage(error) };
  } finally {
    const cpu = meter.stop();
    phaseCpu.push(cpu);
    log(`${name}: ${cpu.wallMs} ms; CPU busy ${cpu.machineBusyPercent} % (benchmark ${cpu.benchmarkPercent} %, other work ${cpu.otherPercent} %)`);
  }
};

const gitInfo = async () => {
  const head = await runCommand('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, timeoutMs: 10_000 }).catch(() => null);
  const status = await runCommand('git', ['status', '--porcelain'], { cwd: REPO_ROOT, timeoutMs: 10_000 }).catch(() => null);
  return {
    gitHead: head?.code === 0 ? head.stdout.trim() : 'unknown',
    uncommittedFiles: status?.code === 0 ? status.stdout.split('\n').filter(Boolean).length : 0,
  };
};

/** Source files changed after the production build was made (the build is not redone; see the README). */
const sourcesNewerThanBuild = (buildIdPath: string): string[] => {
  if (!existsSync(buildIdPath)) return [];
  const builtAt = statSync(buildIdPath).mtimeMs;
  const newer: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const relative = path.relative(REPO_ROOT, full);
      if (relative === path.join('lib', 'bench') || entry.name === 'node_modules') continue;
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|tsx|mjs|js|css)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && statSync(full).mtimeMs > builtAt) {
        newer.push(relative);
      }
    }
  };
  for (const dir of ['app', 'lib']) if (existsSync(path.join(REPO_ROOT, dir))) walk(path.join(REPO_ROOT, dir));
  return newer.sort();
};

const main = async (): Promise<number> => {
  const { values } = parseArgs({
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
      out: { type: 'string' },
      scaled: { type: 'boolean', default: false },
      'scaled-topologies': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const quick = values.quick ?? false;
  const onlyValue = values.only;
  if (onlyValue !== undefined && !(ONLY as readonly string[]).includes(onlyValue)) {
    throw new Error(`--only takes ${ONLY.join(', ')} (got "${onlyValue}")`);
  }
  const only = onlyValue as OnlyPart | undefined;
  const runsPart = (part: OnlyPart) => only === undefined || only === part;
  const mode: BenchResults['mode'] = only ?? (quick ? 'quick' : 'full');
  const uploadRuns = positiveInt(values['upload-runs'], quick ? 1 : 3, 'upload-runs');
  const outDir = path.resolve(values.out ?? BENCH_DIR);
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
  const scaledRequested = values.scaled ?? false;
  const topologies = (values['scaled-topologies'] ?? 'all,http+worker').split(',').map((name) => name.trim());
  const unknownTopology = topologies.find((name) => !(TOPOLOGIES as readonly string[]).includes(name));
  if (unknownTopology !== undefined || topologies.length === 0) throw new Error(`--scaled-topologies takes ${TOPOLOGIES.join(', ')} (got "${values['scaled-topologies']}")`);
  const waitIdleMinutes = values['wait-idle'] === undefined ? 0 : Number(values['wait-idle']);
  if (!Number.isFinite(waitIdleMinutes) || waitIdleMinutes < 0) throw new Error('--wait-idle takes a number of minutes');
  const loadBefore = (label: string) =>
    waitIdleMinutes > 0 ? waitForQuiet({ label, maxWaitMs: waitIdleMinutes * 60_000, log }) : sampleLoad(label);
  const serverEnv: Record<string, string> = { ...SERVER_ENV, ...(values['ingest-timings'] ? { LOG_LEVEL: 'info' } : {}) };
  installExitHandlers();
  const startedAt = new Date();
  const load: LoadSnapshot[] = [];
  const observations: string[] = [];
  let serverLogTail: string[] = [];

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
  const mainServer = doReady || doSegments || doDelivery || doStatic;
  const doScaled = scaledRequested && (doReady || doSegments);
  const readySpecs = doReady ? ALL_INPUTS.filter((spec) => !quick || spec.durationSeconds === SHORT_SECONDS) : [];
  const neededSpecs = [
    ...readySpecs,
    ...(doSegments || doDelivery ? [CLEAN_30] : []),
    ...(doPlayback ? PLAYBACK_INPUTS : []),
    ...(doLoad ? [LOAD_INPUT] : []),
    ...(doStatic ? [CLEAN_300] : []),
    ...(!skipBaseline ? [CLEAN_300] : []),
  ];
  const specs = ALL_INPUTS.filter((spec) => neededSpecs.includes(spec));

  log(`mode ${mode}; repository ${REPO_ROOT}`);
  load.push(await sampleLoad('start'));
  const machine = await machineInfo(FFMPEG, FFPROBE);
  const git = await gitInfo();
  const buildIdPath = path.join(REPO_ROOT, '.next', 'BUILD_ID');
  const { built } = await ensureProductionBuild(REPO_ROOT, log);
  const buildId = existsSync(buildIdPath) ? readFileSync(buildIdPath, 'utf8').trim() : null;
  const staleSources = built ? [] : sourcesNewerThanBuild(buildIdPath);
  if (staleSources.length > 0) {
    log(`warning: ${staleSources.length} source file(s) are newer than the production build (not rebuilt)`);
  }

  // Inputs (cached under bench/.work/)
  const inputs: BenchInput[] = [];
  for (const spec of specs) inputs.push(await ensureInput({ spec, workDir: WORK_DIR, ffmpeg: FFMPEG, ffprobe: FFPROBE, log }));
  const inputOf = (spec: InputSpec) => inputs.find((input) => input.label === inputLabel(spec));
  const shortInput = inputOf(CLEAN_30);
  const longInput = inputOf(CLEAN_300);

  // The delivery comparison's peers (installed with apt when missing, root and Debian).
  const tools = doDelivery
    ? {
        wrk: await ensureSystemTool({ binary: 'wrk', versionArgs: ['-v'], aptPackages: ['wrk'], log }),
        nginx: await ensureSystemTool({ binary: 'nginx', versionArgs: ['-v'], aptPackages: ['nginx-light', 'nginx'], log }),
      }
    : null;
  if (tools && !tools.wrk.available) log(`delivery: ${tools.wrk.reason}; falling back to the node:http load generator`);

  let staticServer: StaticServer | undefined;
  let webhooks: WebhookReceiver | undefined;
  let server: KeyframeServer | undefined;
  let db: AssetDb | undefined;
  const agent = keepAliveAgent(4);
  const skipped = (part: string) => ({ status: 'skipped' as const, reason: only ? `--only ${only}` : quick ? `--quick (${part})` : part });
  let idleMemory: BenchResults['idleMemory'] = mainServer ? { status: 'skipped', reason: 'not reached' } : skipped('no main server');
  let timeToReady: BenchResults['timeToReady'] = doReady ? { status: 'skipped', reason: 'not reached' } : skipped('not run');
  let segments: BenchResults['segments'] = doSegments ? { status: 'skipped', reason: 'not reached' } : skipped('not run');
  let delivery: BenchResults['delivery'] = doDelivery ? { status: 'skipped', reason: 'not reached' } : skipped('not run');
  let baseline: BenchResults['baseline'] = skipBaseline
    ? { status: 'skipped', reason: only ? `--only ${only}` : quick ? '--quick' : '--skip-baseline' }
    : { status: 'skipped', reason: 'not reached' };
  let uploadThroughput: BenchResults['uploadThroughput'] = doUploads ? { status: 'skipped', reason: 'not reached' } : skipped('not run');
  let coldPlayback: BenchResults['coldPlayback'] = doPlayback ? { status: 'skipped', reason: 'not reached' } : skipped('no 300 s inputs');
  let scaled: BenchResults['scaled'] = !scaledRequested
    ? { status: 'skipped', reason: 'not requested (--scaled)' }
    : doScaled
      ? { status: 'skipped', reason: 'not reached' }
      : { status: 'skipped', reason: '--scaled measures time-to-ready and segments, and this run measures neither' };
  let staticRenditions: BenchResults['staticRenditions'] = doStatic ? { status: 'skipped', reason: 'not reached' } : skipped('no 300 s inputs');
  let underLoad: BenchResults['underLoad'] = doLoad ? { status: 'skipped', reason: 'not reached' } : skipped('takes about 10 minutes');
  let captions: BenchResults['captions'] = doCaptions ? { status: 'skipped', reason: 'not reached' } : skipped('not run');
  let live: BenchResults['live'] = doLive ? { status: 'skipped', reason: 'not reached' } : skipped('takes about 15 minutes');
  let collector: BenchResults['collector'] = doCollector ? { status: 'skipped', reason: 'not reached' } : skipped('takes about 4 minutes');

  // The main server's phases: idle memory, time-to-ready, segments, delivery.
  if (mainServer) {
    try {
      staticServer = await startStaticServer(Object.fromEntries(inputs.map((input) => [path.basename(input.path), input.path])));
      const urlOf = (input: BenchInput) => staticServer?.url(path.basename(input.path)) ?? '';
      webhooks = await startWebhookReceiver();
      log(`starting the Keyframe server (${Object.entries(serverEnv).map(([key, value]) => `${key}=${value}`).join(' ')})…`);
      server = await KeyframeServer.start({ repoRoot: REPO_ROOT, env: serverEnv });
      const activeServer = server;
      // Before anything else touches it: the server at rest.
      idleMemory = await phase('idle memory', async () => {
        const result = await measureIdleMemory(activeServer);
        log(`idle memory: RSS ${result.rssMB} MB (anonymous ${result.anonMB} MB), ${result.settleMs / 1000} s after /api/health answered`);
        return result;
      });
      const token = await server.createToken();
      await server.createWebhookEndpoint(webhooks.url);
      db = await openAssetDb(server);
      const activeDb = db;
      const activeWebhooks = webhooks;

      if (doReady) {
        const readyInputs: ReadyInput[] = readySpecs.flatMap((spec) => {
          const input = inputOf(spec);
          return input
            ? [{ label: input.label, kind: input.kind, moov: input.moov, durationSeconds: input.durationSeconds, audioTracks: input.audioTracks, url: urlOf(input) }]
            : [];
        });
        load.push(await loadBefore('before time-to-ready'));
        timeToReady = await phase('time-to-ready', () =>
          measureTimeToReady({ server: activeServer, token, db: activeDb, webhooks: activeWebhooks, inputs: readyInputs, runs, log }),
        );
      }
      if (doSegments && shortInput) {
        load.push(await loadBefore('before segments'));
        segments = await phase('segments', () =>
          measureSegments({ server: activeServer, token, db: activeDb, inputUrl: urlOf(shortInput), samples, agent, log }),
        );
      }
      if (doDelivery && shortInput && tools && staticServer) {
        const files = staticServer;
        load.push(await loadBefore('before delivery'));
        delivery = await phase('delivery', () =>
          measureDelivery({
            server: activeServer,
            token,
            db: activeDb,
            inputUrl: urlOf(shortInput),
            workDir: WORK_DIR,
            staticServer: files,
            wrk: tools.wrk,
            nginx: tools.nginx,
            options: deliveryOptions,
            log,
          }),
        );
      }
      if (doStatic && longInput) {
        const input = { label: longInput.label, url: urlOf(longInput), path: longInput.path, durationSeconds: longInput.durationSeconds };
        load.push(await loadBefore('before static renditions'));
        staticRenditions = await phase('static renditions', () =>
          measureStaticRenditions({ server: activeServer, token, db: activeDb, webhooks: activeWebhooks, input, log }),
        );
      }
    } catch (error) {
      log(`setup failed: ${errorMessage(error)}`);
      const failure = { status: 'error' as const, error: errorMessage(error) };
      if (idleMemory.status === 'skipped') idleMemory = failure;
      if (doReady && timeToReady.status === 'skipped') timeToReady = failure;
      if (doSegments && segments.status === 'skipped') segments = failure;
      if (doDelivery && delivery.status === 'skipped') delivery = failure;
      if (doStatic && staticRenditions.status === 'skipped') staticRenditions = failure;
    } finally {
      agent.destroy();
      await db?.close();
      if (server) {
        serverLogTail = server.logs().split('\n').filter(Boolean).slice(-40);
        await server.stop();
      }
      await webhooks?.close();
      await staticServer?.close();
    }
  }

  // The same time-to-ready and segment measurements on PostgreSQL + Redis + S3, after the main server stopped.
  if (doScaled) {
    load.push(await loadBefore('before scaled'));
    const readyInputs = readySpecs.map(inputOf).filter((input): input is BenchInput => input !== undefined);
    const measured = await phase('scaled', () =>
      measureScaled({
        repoRoot: REPO_ROOT,
        serverEnv,
        measure: { readyInputs, segmentInput: doSegments ? (shortInput ?? null) : null, runs, samples },
        topologies: topologies as Topology[],
        embedded: { timeToReady, segments },
        log,
      }),
    );
    scaled = measured.status === 'ok' ? measured.value : measured;
    if (scaled.status === 'ok') {
      for (const configuration of scaled.value.configurations) {
        serverLogTail = [...serverLogTail, ...configuration.serverLogTail.map((line) => `[scaled ${configuration.topology}] ${line}`)];
      }
    }
  }

  // On a server of its own (see measureUploadThroughputOnFreshServer), after the main one stopped.
  if (doUploads) {
    load.push(await loadBefore('before upload throughput'));
    uploadThroughput = await phase('upload throughput', async () => {
      const { result, serverLogTail: uploadServerLogTail } = await measureUploadThroughputOnFreshServer({
        repoRoot: REPO_ROOT,
        env: serverEnv,
        ffmpeg: FFMPEG,
        runs: uploadRuns,
        log,
      });
      serverLogTail = [...serverLogTail, ...uploadServerLogTail.map((line) => `[upload-throughput server] ${line}`)];
      return result;
    });
  }

  // Also on a server of its own: default settings (prefetch on), as a viewer would meet it.
  const playbackInputs = PLAYBACK_INPUTS.map(inputOf).filter((input): input is BenchInput => input !== undefined);
  if (doPlayback && playbackInputs.length > 0) {
    load.push(await loadBefore('before cold playback'));
    coldPlayback = await phase('cold playback', async () => {
      const { result, serverLogTail: playbackServerLogTail } = await measureColdPlaybackOnFreshServer({
        repoRoot: REPO_ROOT,
        env: values['ingest-timings'] ? { LOG_LEVEL: 'info' } : {},
        inputs: playbackInputs.map((input) => ({ label: input.label, path: input.path })),
        seconds: COLD_PLAYBACK_SECONDS,
        runs: playbackRuns,
        log,
      });
      serverLogTail = [...serverLogTail, ...playbackServerLogTail.map((line) => `[cold-playback server] ${line}`)];
      return result;
    });
  }

  // On a server of its own with default settings, like cold playback.
  const loadInput = inputOf(LOAD_INPUT);
  if (doLoad && loadInput) {
    load.push(await loadBefore('before load'));
    underLoad = await phase('load', async () => {
      const nginx = tools?.nginx ?? (await ensureSystemTool({ binary: 'nginx', versionArgs: ['-v'], aptPackages: ['nginx-light', 'nginx'], log }));
      if (!nginx.available) log(`load: ${nginx.reason}; the cached pass runs without its nginx peer`);
      const { result, serverLogTail: loadServerLogTail } = await measureLoadOnFreshServer({
        repoRoot: REPO_ROOT,
        env: values['ingest-timings'] ? { LOG_LEVEL: 'info' } : {},
        input: { label: loadInput.label, path: loadInput.path },
        options: loadOptions,
        nginx: nginx.available ? nginx.path : null,
        workDir: WORK_DIR,
        log,
      });
      serverLogTail = [...serverLogTail, ...loadServerLogTail.map((line) => `[load server] ${line}`)];
      return result;
    });
  }

  // No server: the captions pipeline is called directly, as the generate-captions job calls it.
  if (doCaptions) {
    load.push(await loadBefore('before captions'));
    captions = await phase('captions', () => measureCaptions({ workDir: WORK_DIR, sharedMediaDir: SHARED_MEDIA_DIR, runs: captionsRuns, log }));
  }

  // On a server of its own with RTMP ingest on a free port.
  if (doLive) {
    load.push(await loadBefore('before live'));
    live = await phase('live', async () => {
      const { result, serverLogTail: liveServerLogTail } = await measureLiveOnFreshServer({ repoRoot: REPO_ROOT, workDir: WORK_DIR, log });
      serverLogTail = [...serverLogTail, ...liveServerLogTail.map((line) => `[live server] ${line}`)];
      return result;
    });
  }

  // On a server of its own behind a playback worker.
  if (doCollector) {
    load.push(await loadBefore('before collector'));
    collector = await phase('collector', async () => {
      const { result, serverLogTail: collectorLogTail } = await measureCollectorOnFreshServer({ repoRoot: REPO_ROOT, log });
      serverLogTail = [...serverLogTail, ...collectorLogTail.map((line) => `[collector server] ${line}`)];
      return result;
    });
  }

  if (!skipBaseline && longInput) {
    load.push(await loadBefore('before baseline'));
    baseline = await phase('baseline', () =>
      runBaseline({ ffmpeg: FFMPEG, inputPath: longInput.path, inputDurationSeconds: longInput.durationSeconds, log }),
    );
  }
  load.push(await sampleLoad('end'));

  // Summary, targets, observations
  const ready = timeToReady.status === 'ok' ? timeToReady.value : null;
  const medianOf = (spec: InputSpec) => ready?.medians[inputLabel(spec)];
  const ratioOf = (group: string) => ready?.ratios.find((entry) => entry.group === group);
  const cleanRatio = ratioOf('clean');
  const first = segments.status === 'ok' ? segments.value.firstListed : null;
  const baselineMs = baseline.status === 'ok' ? baseline.value.wallMs : null;
  const upload = uploadThroughput.status === 'ok' ? uploadThroughput.value : null;
  const comparisons = delivery.status === 'ok' ? delivery.value.comparisons : [];
  const longClean = medianOf(CLEAN_300);
  const summary: BenchResults['summary'] = {
    timeToReadyMs: Object.fromEntries(
      Object.entries(ready?.medians ?? {}).map(([label, value]) => [label, { serverSide: value.serverMs, clientObserved: value.clientMs, dbPoll: value.pollMs }]),
    ),
    timeToReadyRatios: ready?.ratios ?? [],
    timeToReadyAudioTracks: ready?.audioTracks ?? [],
    idleRssMB: idleMemory.status === 'ok' ? idleMemory.value.rssMB : null,
    firstListedVariant: first?.rung ?? null,
    firstListedColdSegment0Ms: first?.coldMs ?? null,
    firstListedColdSegment0DirectMs: first?.coldDirectMs ?? null,
    firstListedInitPlusColdMs: first?.initPlusColdMs ?? null,
    firstListedStartupMs: segments.status === 'ok' ? segments.value.startup.medianTotalMs : null,
    delivery: Object.fromEntries(
      comparisons.map((comparison) => [
        comparison.kind,
        {
          keyframeRequestsPerSecond: comparison.servers.keyframe?.requestsPerSecond ?? null,
          nginxRequestsPerSecond: comparison.servers.nginx?.requestsPerSecond ?? null,
          requestsPerSecondVsNginx: comparison.vsNginx?.requestsPerSecond ?? null,
          p99VsNginx: comparison.vsNginx?.p99 ?? null,
        },
      ]),
    ),
    baselineMs,
    ratioTimeToReady300ToBaseline:
      ratio(longClean?.serverMs ?? null, baselineMs) === null ? null : round((longClean?.serverMs ?? 0) / (baselineMs ?? 1), 5),
    uploadSinglePutMegabytesPerSecond: upload?.medians['single PUT'].megabytesPerSecond ?? null,
    uploadChunkedMegabytesPerSecond: upload?.medians['32 MiB chunks'].megabytesPerSecond ?? null,
    uploadServerPeakRssMB: upload?.peakRssMB ?? null,
    coldPlaybackMaxStalls: coldPlayback.status === 'ok' ? Object.fromEntries(coldPlayback.value.inputs.map((entry) => [entry.input, entry.maxStalls])) : {},
    underLoad:
      underLoad.status === 'ok'
        ? {
            freshStalls: underLoad.value.fresh.stalls,
            freshVideoFetchP99Ms: underLoad.value.fresh.videoFetchMs.p99,
            freshAudioFetchP99Ms: underLoad.value.fresh.audioFetchMs.p99,
            cachedStalls: underLoad.value.cached.stalls,
            cachedVideoFetchP99Ms: underLoad.value.cached.videoFetchMs.p99,
            cachedAudioFetchP99Ms: underLoad.value.cached.audioFetchMs.p99,
            burstFirstCreateToLastReadyMs: underLoad.value.burst.firstCreateToLastReadyMs,
          }
        : null,
    captionsCpuSecondsPerAudioSecond:
      captions.status === 'ok' ? Object.fromEntries(captions.value.inputs.map((input) => [input.label, input.median.cpuSecondsPerAudioSecond])) : {},
    live:
      live.status === 'ok'
        ? {
            modes: Object.fromEntries(
              live.value.modes.map((entry) => [
                entry.mode,
                {
                  medianLatencySeconds: entry.playback?.medianLatencySeconds ?? null,
                  publisherClockLatencySeconds: entry.publisherClockLatencySeconds,
                  p95LatencySeconds: entry.playback?.p95LatencySeconds ?? null,
                  stalls: entry.playback?.stalls ?? null,
                  medianPlayableMs: entry.medianPlayableMs,
                },
              ]),
            ),
            cpuPerStream: Object.fromEntries(
              live.value.cpu.map((entry) => [
                entry.input,
                entry.status === 'ok'
                  ? {
                      keyframe: entry.value.keyframe.totalCpuPerSecond,
                      packager: entry.value.keyframe.packagerCpuPerSecond,
                      server: entry.value.keyframe.serverCpuPerSecond,
                      peer: entry.value.peer.totalCpuPerSecond,
                      keyframeVsPeer: entry.value.totalVsPeer,
                    }
                  : { keyframe: null, packager: null, server: null, peer: null, keyframeVsPeer: null },
              ]),
            ),
            concurrentStreamsHeld: Object.fromEntries(live.value.concurrency.map((entry) => [entry.input, entry.status === 'ok' ? entry.value.heldUpTo : null])),
          }
        : null,
    collector:
      collector.status === 'ok'
        ? {
            validRefused: collector.value.validRefused,
            validP99Ms: collector.value.latencyMs.valid.p99,
            viewsStored: collector.value.views.stored,
            viewsSent: collector.value.views.sent,
            rssMB: collector.value.rssMB,
          }
        : null,
  };

  // Whether a target passed follows from its value, limit and direction (null: not measured).
  const target = (spec: Omit<Target, 'pass'>): Target => ({
    ...spec,
    pass: spec.value === null ? null : spec.atLeast ? spec.value >= spec.limit : spec.value <= spec.limit,
  });
  const targets: Target[] = [];
  if (doReady) {
    const clean30 = medianOf(CLEAN_30);
    targets.push(
      target({
        id: 'time_to_ready_clean_30s',
        description: `Time to ready, ${inputLabel(CLEAN_30)} (median, server-side)`,
        value: clean30?.serverMs ?? null,
        limit: LIMITS.timeToReady30Ms,
        unit: 'ms',
        note: clean30 ? `client-observed (webhook) median ${formatMs(clean30.clientMs)}, database poll ${formatMs(clean30.pollMs)}` : undefined,
      }),
      target({
        id: 'ratio_clean_300s_to_30s',
        description: 'Time to ready, clean: median(300 s) / median(30 s), server-side',
        value: cleanRatio?.serverSide ?? null,
        limit: LIMITS.ratio300To30,
        unit: 'ratio',
        note: quick ? 'not measured in a --quick run' : cleanRatio ? `client-observed ${formatRatio(cleanRatio.clientObserved)}` : undefined,
      }),
    );
    for (const spec of [CAMERA_30_FIRST, CAMERA_30_LAST]) {
      const value = medianOf(spec);
      targets.push(
        target({
          id: `time_to_ready_camera_30s_moov_${spec.moov}`,
          description: `Time to ready, ${inputLabel(spec)} (median, server-side)`,
          value: value?.serverMs ?? null,
          limit: LIMITS.cameraTimeToReady30Ms,
          unit: 'ms',
        }),
      );
    }
    for (const moov of ['first', 'last'] as const) {
      const entry = ratioOf(`camera, moov ${moov}`);
      targets.push(
        target({
          id: `ratio_camera_moov_${moov}_300s_to_30s`,
          description: `Time to ready, camera, moov ${moov}: median(300 s) / median(30 s), server-side`,
          value: entry?.serverSide ?? null,
          limit: LIMITS.ratio300To30,
          unit: 'ratio',
          note: quick ? 'not measured in a --quick run' : entry ? `client-observed ${formatRatio(entry.clientObserved)}` : undefined,
        }),
      );
    }
    for (const spec of [CAMERA_30_FIRST, CAMERA_30_LAST, CAMERA_300_FIRST, CAMERA_300_LAST]) {
      if (quick && spec.durationSeconds !== SHORT_SECONDS) continue;
      const value = medianOf(spec);
      targets.push(
        target({
          id: `client_observed_camera_${spec.durationSeconds}s_moov_${spec.moov}`,
          description: `Client-observed time to ready, ${inputLabel(spec)} (create sent → ready webhook received, median)`,
          value: value?.clientMs ?? null,
          limit: LIMITS.cameraClientObservedMs,
          unit: 'ms',
          note: value?.webhooksMissing ? `${value.webhooksMissing} of ${value.runs} ready webhooks did not arrive within ${ready?.webhookTimeoutMs} ms` : undefined,
        }),
      );
    }
  }
  if (doSegments) {
    const firstRungSample = segments.status === 'ok' ? segments.value.rungs[0] : undefined;
    const encodesEarly = firstRungSample !== undefined && !firstRungSample.segment0OnDiskAfterInit.startsWith('0/');
    targets.push(
      target({
        id: 'cold_segment0_first_listed',
        description: `Cold segment 0 of the first-listed variant (${first?.rung ?? '?'}), player order`,
        value: first?.coldMs ?? null,
        limit: LIMITS.coldSegment0Ms,
        unit: 'ms',
        note: first
          ? `TTLB of the 0.m4s request after multivariant → playlist → init.mp4${encodesEarly ? ` (segment 0 was already on disk when it was sent in ${firstRungSample?.segment0OnDiskAfterInit} samples)` : ''}; ` +
            `init.mp4 took ${formatMs(first.initMs)}; multivariant request → last byte of segment 0 ${formatMs(segments.status === 'ok' ? segments.value.startup.medianTotalMs : null)}`
          : undefined,
      }),
      target({
        id: 'cold_segment0_first_listed_segment_first',
        description: `Cold segment 0 of the first-listed variant (${first?.rung ?? '?'}), requested before anything else`,
        value: first?.coldDirectMs ?? null,
        limit: LIMITS.coldSegment0Ms,
        unit: 'ms',
        note: "not one of the brief's targets: the same limit applied to the full on-demand encode of segment 0",
      }),
    );
  }
  if (doDelivery) {
    const viaNode = delivery.status === 'ok' && delivery.value.loadGenerator.tool === 'node' ? ' (node:http load generator: wrk was unavailable)' : '';
    for (const kind of DELIVERY_KINDS) {
      const comparison = comparisons.find((entry) => entry.kind === kind);
      const k = comparison?.servers.keyframe;
      const n = comparison?.servers.nginx;
      targets.push(
        target({
          id: `delivery_${kind.replace(/ /g, '_')}_rps_vs_nginx`,
          description: `Cached ${kind}: Keyframe req/s ÷ nginx req/s${viaNode}`,
          value: comparison?.vsNginx?.requestsPerSecond ?? null,
          limit: LIMITS.deliveryRequestsPerSecondVsNginx,
          atLeast: true,
          unit: 'ratio',
          note: k && n ? `${k.requestsPerSecond} vs ${n.requestsPerSecond} req/s (medians of ${k.rounds} alternating runs)` : n === undefined && delivery.status === 'ok' ? 'nginx unavailable' : undefined,
        }),
        target({
          id: `delivery_${kind.replace(/ /g, '_')}_p99_vs_nginx`,
          description: `Cached ${kind}: Keyframe p99 ÷ nginx p99${viaNode}`,
          value: comparison?.vsNginx?.p99 ?? null,
          limit: LIMITS.deliveryP99VsNginx,
          unit: 'ratio',
          note: k && n ? `${formatMs(k.p99Ms)} vs ${formatMs(n.p99Ms)}` : undefined,
        }),
      );
    }
  }
  if (doUploads) {
    targets.push(
      target({
        id: 'upload_peak_rss',
        description: 'Server peak RSS (VmHWM) while receiving ~1.09 GB direct uploads',
        value: upload?.peakRssMB ?? null,
        limit: LIMITS.uploadPeakRssMB,
        unit: 'MB',
        note: upload
          ? `${upload.memoryAtStartMB.rss} MB at start (before any request); sampled peak ${upload.rssFlatness.smallUploadPeakMB} MB during a ${round(upload.smallFile.bytes / 1e6, 0)} MB upload, ` +
            `${upload.rssFlatness.largeUploadPeakMB} MB during the ${round(upload.largeFile.bytes / 1e6, 0)} MB ones`
          : undefined,
      }),
      target({
        id: 'upload_rss_growth',
        description: `Server RSS growth from a ${upload ? round(upload.smallFile.bytes / 1e6, 0) : '?'} MB to a ${upload ? round(upload.largeFile.bytes / 1e6, 0) : '?'} MB upload (sampled peaks)`,
        value: upload?.rssFlatness.growthMB ?? null,
        limit: LIMITS.uploadRssGrowthMB,
        unit: 'MB',
        note: '"flat regardless of file size": the tolerance allows for garbage-collector noise, not for buffering a file',
      }),
    );
  }
  if (doPlayback) {
    for (const spec of PLAYBACK_INPUTS) {
      const entry = coldPlayback.status === 'ok' ? coldPlayback.value.inputs.find((item) => item.input === inputLabel(spec)) : undefined;
      const perRun = coldPlayback.status === 'ok' ? coldPlayback.value.runs.filter((run) => run.input === inputLabel(spec)).map((run) => run.stalls) : [];
      targets.push(
        target({
          id: `cold_playback_stalls_${spec.kind}`,
          description: `Stalls after the first frame, ${COLD_PLAYBACK_SECONDS} s cold playback of ${inputLabel(spec)} in hls.js/Chromium (worst of ${playbackRuns})`,
          value: entry?.maxStalls ?? null,
          limit: 0,
          unit: 'count',
          note: entry ? `per run: ${perRun.join(', ')}; median startup ${formatMs(entry.medianStartupMs)}` : undefined,
        }),
      );
    }
  }

  if (doLoad) {
    const value = underLoad.status === 'ok' ? underLoad.value : null;
    const viewers = value ? `${value.fresh.viewers} viewers on ${value.options.assets} assets` : 'viewers';
    const segmentMs = (value?.fresh.segmentSeconds ?? 4) * 1000;
    const passNote = (pass: 'fresh' | 'cached') => {
      const entry = value?.[pass];
      return entry
        ? `${entry.viewersWithStalls} viewer(s) stalled, ${entry.stalledSeconds} s in all; ${entry.httpErrors} HTTP errors; ` +
            `p50/p90/p99 video ${formatMs(entry.videoFetchMs.p50)}/${formatMs(entry.videoFetchMs.p90)}/${formatMs(entry.videoFetchMs.p99)} ` +
            `(after playback started ${formatMs(entry.videoFetchAfterStartMs.p50)}/${formatMs(entry.videoFetchAfterStartMs.p90)}/${formatMs(entry.videoFetchAfterStartMs.p99)}), ` +
            `audio ${formatMs(entry.audioFetchMs.p50)}/${formatMs(entry.audioFetchMs.p90)}/${formatMs(entry.audioFetchMs.p99)}; rungs played ${Object.entries(entry.rungsPlayed).map(([rung, count]) => `${rung} ${count}`).join(', ')}`
        : undefined;
    };
    targets.push(
      target({
        id: 'load_fresh_stalls',
        description: `Under load, fresh: stalls after start, ${viewers} made ready the moment before`,
        value: value?.fresh.stalls ?? null,
        limit: 0,
        unit: 'count',
        note: passNote('fresh'),
      }),
      target({
        id: 'load_fresh_video_fetch_p99',
        description: 'Under load, fresh: video segment fetch p99 (limit: the segment duration)',
        value: value?.fresh.videoFetchMs.p99 ?? null,
        limit: segmentMs,
        unit: 'ms',
      }),
      target({
        id: 'load_fresh_audio_fetch_p99',
        description: 'Under load, fresh: audio segment fetch p99 (limit: the segment duration)',
        value: value?.fresh.audioFetchMs.p99 ?? null,
        limit: segmentMs,
        unit: 'ms',
      }),
      target({
        id: 'load_cached_stalls',
        description: `Under load, cached ladders: stalls after start, ${viewers}`,
        value: value?.cached.stalls ?? null,
        limit: 0,
        unit: 'count',
        note: passNote('cached'),
      }),
      target({
        id: 'load_cached_video_fetch_p99',
        description: 'Under load, cached ladders: video segment fetch p99',
        value: value?.cached.videoFetchMs.p99 ?? null,
        limit: LOAD_LIMITS.cachedFetchP99Ms,
        unit: 'ms',
        note: value?.cachedOnNginx
          ? `nginx serving the same files to the same viewers: p50/p90/p99 ${formatMs(value.cachedOnNginx.videoFetchMs.p50)}/${formatMs(value.cachedOnNginx.videoFetchMs.p90)}/${formatMs(value.cachedOnNginx.videoFetchMs.p99)}` +
            ` (Keyframe ÷ nginx p99 ${formatRatio(ratio(value.cached.videoFetchMs.p99, value.cachedOnNginx.videoFetchMs.p99))})`
          : undefined,
      }),
      target({
        id: 'load_cached_audio_fetch_p99',
        description: 'Under load, cached ladders: audio segment fetch p99',
        value: value?.cached.audioFetchMs.p99 ?? null,
        limit: LOAD_LIMITS.cachedFetchP99Ms,
        unit: 'ms',
      }),
      target({
        id: 'load_burst_last_ready',
        description: `${value?.options.burstCreates ?? loadOptions.burstCreates} concurrent creates of ${inputLabel(LOAD_INPUT)}: first create → last ready`,
        value: value?.burst.firstCreateToLastReadyMs ?? null,
        limit: LOAD_LIMITS.burstLastReadyMs,
        unit: 'ms',
        note: value
          ? `${value.burst.ready} of ${value.burst.creates} ready (${value.burst.errored} errored, ${value.burst.createErrors} failed creates); per asset create → ready p50 ${formatMs(value.burst.perAssetReadyMs.p50)}, p90 ${formatMs(value.burst.perAssetReadyMs.p90)}`
          : undefined,
      }),
      target({
        id: 'load_burst_not_ready',
        description: 'Concurrent creates that did not become ready (errored, failed or timed out)',
        value: value ? value.burst.creates - value.burst.ready : null,
        limit: 0,
        unit: 'count',
      }),
    );
  }

  if (doCollector) {
    const value = collector.status === 'ok' ? collector.value : null;
    targets.push(
      target({ id: 'collector_valid_refused', description: 'Valid beacons not answered 200 at 1,000 beacons/s', value: value?.validRefused ?? null, limit: 0, unit: 'count' }),
      target({
        id: 'collector_views_lost',
        description: 'Views sent but not written once the load ended',
        value: value && value.views.stored !== null ? value.views.sent - value.views.stored : null,
        limit: 0,
        unit: 'count',
      }),
      target({
        id: 'collector_valid_p99',
        description: 'Beacon answer latency, valid bodies (p99)',
        value: value?.latencyMs.valid.p99 ?? null,
        limit: 50,
        unit: 'ms',
      }),
      target({
        id: 'collector_memory_back',
        description: 'Server RSS above its resting value once kept view states aged out',
        value: value && value.rssMB.afterIdle !== null && value.rssMB.before !== null ? round(value.rssMB.afterIdle - value.rssMB.before, 1) : null,
        limit: 60,
        unit: 'MB',
        note: value ? `peak ${value.rssMB.peak} MB over ${value.rssMB.before} MB at rest; ${value.rssMB.afterWrites} MB right after the writes` : undefined,
      }),
    );
  }

  if (doLive) {
    const value = live.status === 'ok' ? live.value : null;
    for (const mode of LIVE_MODES) {
      const entry = value?.modes.find((candidate) => candidate.mode === mode);
      const playback = entry?.playback ?? null;
      targets.push(
        target({
          id: `live_latency_${mode}`,
          description: `Live glass-to-glass latency, ${mode} (hls.js default configuration, median)`,
          value: playback?.medianLatencySeconds === null || playback?.medianLatencySeconds === undefined ? null : Math.round(playback.medianLatencySeconds * 1000),
          limit: LIVE_LATENCY_TARGET_SECONDS[mode] * 1000,
          unit: 'ms',
          note: playback
            ? `p95 ${playback.p95LatencySeconds} s; ${playback.firstLatencySeconds} s at the first sample; against the publisher's clock ${entry?.publisherClockLatencySeconds ?? 'n/a'} s; ` +
              `hls.latency median ${playback.medianHlsLatencySeconds} s; player clock ${playback.playbackRate}×`
            : (entry?.playbackError ?? undefined),
        }),
        target({
          id: `live_stalls_${mode}`,
          description: `Stalls in ${DEFAULT_LIVE_OPTIONS.playbackSeconds} s of live playback, ${mode}`,
          value: playback?.stalls ?? null,
          limit: 0,
          unit: 'count',
        }),
        target({
          id: `live_playable_${mode}`,
          description: `Publisher connect → playable playlist, ${mode} (median; limit 2 segment durations + 1 s)`,
          value: entry?.medianPlayableMs ?? null,
          limit: livePlayableTargetMs(mode),
          unit: 'ms',
          note: entry ? `runs: ${entry.playable.map((sample) => formatMs(sample.playableMs)).join(', ')}` : undefined,
        }),
      );
    }
    for (const entry of value?.concurrency ?? []) {
      targets.push(
        target({
          id: `live_concurrent_${entry.input}`,
          description: `Concurrent ${entry.input} streams held in real time (limit: LIVE_MAX_STREAMS's default)`,
          value: entry.status === 'ok' ? entry.value.heldUpTo : null,
          limit: 2,
          atLeast: true,
          unit: 'count',
          note: entry.status === 'ok' ? `stopped: ${entry.value.stoppedBecause}` : entry.status === 'error' ? entry.error : entry.reason,
        }),
      );
    }
  }

  const contended = phaseCpu.filter((cpu) => cpu.otherPercent !== null && cpu.otherPercent > 10);
  if (contended.length > 0) {
    observations.push(
      `Other work used the CPU during the measurements (${contended
        .map((cpu) => `${cpu.phase}: ${cpu.otherPercent} % of all cores`)
        .join('; ')}); those phases measured a shared machine.`,
    );
  }
  const baselineCpu = phaseCpu.find((cpu) => cpu.phase === 'baseline');
  if (baseline.status === 'ok' && baselineCpu?.benchmarkPercent && baselineCpu.otherPercent !== null && baselineCpu.otherPercent > 10) {
    const cpuSeconds = (baselineCpu.wallMs / 1000) * (baselineCpu.benchmarkPercent / 100) * machine.cores;
    observations.push(
      `The baseline ffmpeg shared the CPU (it got ${baselineCpu.benchmarkPercent} % of all cores, other work ${baselineCpu.otherPercent} %): ` +
        `it used about ${Math.round(cpuSeconds)} CPU-seconds, i.e. at least ~${Math.round(cpuSeconds / machine.cores)} s on ${machine.cores} otherwise idle cores ` +
        `(measured wall time ${Math.round(baselineCpu.wallMs / 1000)} s).`,
    );
  }
  const busy = load.filter((sample) => sample.cpuBusyPercent !== null && sample.cpuBusyPercent > 15);
  if (busy.length > 0) {
    observations.push(
      `Other work kept the CPU busy while the benchmark itself was idle (${busy
        .map((sample) => `${sample.label}: ${sample.cpuBusyPercent} %, load ${sample.loadAverage1m}`)
        .join('; ')}); the timings are pessimistic for an otherwise idle machine.`,
    );
  }
  if (staleSources.length > 0) {
    observations.push(
      `The production build (.next/BUILD_ID ${buildId}) is older than ${staleSources.length} source file(s), e.g. ${staleSources.slice(0, 4).join(', ')}; ` +
        'the server ran the old build for Next.js routes. Run `npm run build` and benchmark again.',
    );
  }
  for (const input of inputs) {
    const video = input.properties?.video;
    if (input.kind !== 'camera' || !video) continue;
    const problems = [
      video.bitrateKbps !== null && (video.bitrateKbps < 6_000 || video.bitrateKbps > 8_000) ? `video bitrate ${video.bitrateKbps} kb/s is outside 6–8 Mb/s` : null,
      video.bFrames === 0 ? 'it has no B-frames' : null,
      input.properties?.moov !== input.moov ? `its moov is ${input.properties?.moov ?? 'not found'} (expected ${input.moov})` : null,
    ].filter(Boolean);
    if (problems.length > 0) observations.push(`The camera-like input "${input.label}" is not what it should be: ${problems.join('; ')}.`);
  }
  if (segments.status === 'ok') {
    const firstRungSample = segments.value.rungs[0];
    if (firstRungSample && !firstRungSample.segment0OnDiskAfterInit.startsWith('0/')) {
      observations.push(
        `In player order, segment 0 of ${firstRungSample.rung} was already on disk before its 0.m4s request in ${firstRungSample.segment0OnDiskAfterInit} samples ` +
          '(the multivariant request starts encoding it), so that "cold" request was a disk read; ' +
          'the cost moved into the init.mp4 request. The segment-first column is the full on-demand encode.',
      );
    }
    const others = segments.value.rungs.slice(1).filter((rung) => !rung.segment0OnDiskAfterInit.startsWith('0/'));
    if (others.length > 0) {
      observations.push(
        `init.mp4 of ${others.map((rung) => rung.rung).join(', ')} encoded segment 0 as a side effect (on disk after init: ` +
          `${others.map((rung) => `${rung.rung} ${rung.segment0OnDiskAfterInit}`).join(', ')}), so "cold" segment 0 there is a disk read too.`,
      );
    }
    if (first && !first.consistentAcrossSamples) observations.push('The first-listed variant differed between samples.');
  }
  if (ready) {
    const unsettled = ready.samples.filter((sample) => sample.settle.timedOut);
    if (unsettled.length > 0) observations.push(`Post-ready work did not settle within 3 min after ${unsettled.length} asset(s).`);
  }
  if (delivery.status === 'ok') {
    const value = delivery.value;
    if (value.loadGenerator.note) observations.push(value.loadGenerator.note);
    if (!value.nginx.available) observations.push(`nginx was skipped: ${value.nginx.reason}.`);
    const unstable = value.resources.filter((resource) => !resource.stable);
    if (unstable.length > 0) observations.push(`Keyframe answered two requests for ${unstable.map((resource) => resource.urlPath).join(', ')} with different bytes; nginx served the second answer.`);
    const failing = value.runs.filter((run) => Object.values(run.load.errors).some((count) => count > 0));
    if (failing.length > 0) {
      observations.push(
        `Delivery load runs with errors: ${failing.map((run) => `${run.kind} ${run.server} round ${run.round} ${JSON.stringify(run.load.errors)}`).join('; ')}.`,
      );
    }
    const drift = value.comparisons.filter((comparison) => {
      const ratios = comparison.perRound.map((entry) => entry.requestsPerSecond).filter((entry): entry is number => entry !== null);
      return ratios.length > 1 && Math.max(...ratios) > 1.5 * Math.min(...ratios);
    });
    if (drift.length > 0) {
      observations.push(
        `The Keyframe/nginx req/s ratio varied by more than 1.5× between rounds for ${drift.map((comparison) => comparison.kind).join(', ')} ` +
          '(per-round ratios in the delivery table): the machine was not steady.',
      );
    }
  }

  const finishedAt = new Date();
  const results: BenchResults = {
    schema: 'keyframe-bench/2',
    mode,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationSeconds: round((finishedAt.getTime() - startedAt.getTime()) / 1000, 1),
    command: `tsx lib/bench/run-bench.ts ${process.argv.slice(2).join(' ')}`.trim(),
    repo: { root: REPO_ROOT, ...git, buildId, buildCreated: built, buildOlderThanSources: staleSources },
    machine,
    load,
    phaseCpu,
    config: {
      server: { NODE_ENV: 'production', ALLOW_PRIVATE_INPUT_URLS: 'true', LOG_LEVEL: 'warn', ...serverEnv },
      timeToReadyRuns: runs,
      segmentSamples: samples,
      delivery: deliveryOptions,
      uploadThroughput: { runsPerMethod: uploadRuns },
      coldPlayback: { runs: playbackRuns, seconds: COLD_PLAYBACK_SECONDS, inputs: PLAYBACK_INPUTS.map(inputLabel) },
      underLoad: { ...loadOptions, input: inputLabel(LOAD_INPUT) },
      dbPollMs: 20,
      scaled: { requested: scaledRequested, topologies },
      captions: { runsPerInput: captionsRuns },
      collector: DEFAULT_COLLECTOR_OPTIONS,
      live: DEFAULT_LIVE_OPTIONS,
    },
    inputs,
    idleMemory,
    timeToReady,
    segments,
    delivery,
    baseline,
    uploadThroughput,
    coldPlayback,
    staticRenditions,
    underLoad,
    scaled,
    captions,
    live,
    collector,
    summary,
    targets,
    observations,
    serverLogTail,
  };

  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const markdown = renderMarkdown(results);
  writeFileSync(path.join(outDir, 'results.md'), markdown);
  process.stdout.write(markdown);
  log(`wrote ${path.relative(process.cwd(), path.join(outDir, 'results.json'))} and results.md`);
  const failedPhases = [idleMemory, timeToReady, segments, delivery, baseline, uploadThroughput, coldPlayback, staticRenditions, underLoad, scaled, live, collector].filter((outcome) => outcome.status === 'error').length;
  return failedPhases > 0 ? 1 : 0;
};

main().then(
  (code) => {
    killEverythingSync();
    process.exit(code);
  },
  (error: unknown) => {
    log(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    killEverythingSync();
    process.exit(2);
  },
);
