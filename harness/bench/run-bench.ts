import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { installNodeRuntime } from '../../lib/runtime/node-runtime';
import { createNodeRuntime } from '../../lib/server/create-node-runtime';
import { keepAliveAgent } from '../http';
import type { KeyframeProcess } from '../keyframe-process';
import { REPO_ROOT } from '../paths';
import { installExitHandlers, killEverythingSync } from '../processes';
import { startStaticServer, type StaticServer } from '../static-server';
import { errorMessage, round } from '../stats';
import { WebhookReceiver } from '../webhook-receiver';
import { openAssetDb, type AssetDb } from './asset-db';
import { runBaseline } from './baseline';
import { CLEAN_30, CLEAN_300, COLD_PLAYBACK_SECONDS, LOAD_INPUT, PLAYBACK_INPUTS } from './bench-config';
import { benchObservations } from './bench-observations';
import { parseBenchOptions, USAGE } from './bench-options';
import { ensureProductionBuild, startBenchServer } from './bench-server';
import { summariseResults } from './bench-summary';
import { benchTargets } from './bench-targets';
import { gitInfo, sourcesNewerThanBuild } from './build-state';
import { measureCaptions } from './captions';
import { measureColdPlaybackOnFreshServer } from './cold-playback';
import { DEFAULT_COLLECTOR_OPTIONS, measureCollectorOnFreshServer } from './collector';
import { measureChaos } from './chaos';
import { measureDelivery } from './delivery';
import { measureIdleMemory } from './idle-memory';
import { ensureInput, inputLabel, type BenchInput, type InputSpec } from './inputs';
import { measureLiveOnFreshServer } from './live';
import { measureCapacity } from './capacity';
import { runQualityBench } from './quality-bench';
import { measureLoadOnFreshServer } from './load';
import { machineInfo, phaseMeter, sampleLoad, waitForQuiet, type LoadSnapshot, type PhaseCpu } from './machine';
import type { BenchResults, PhaseOutcome } from './bench-results';
import { renderMarkdown } from './report';
import { measureScaled } from './scaled';
import type { Topology } from './scaled-deployment';
import { measureSegments } from './segments';
import { measureStaticRenditions } from './static-renditions';
import { ensureSystemTool } from './system-tools';
import { measureTimeToReady, type ReadyInput } from './time-to-ready';
import { measureUploadThroughputOnFreshServer } from './upload-throughput';

// `npm run bench` (full, ~20 min), `npm run bench -- --quick` (30 s inputs, no baseline, no cold
// playback) or `--only <part>` (one part alone; see USAGE).
// Progress goes to stderr; the markdown report to stdout, bench/results.md and bench/results.json.
// The options are bench-options.ts, the inputs and limits bench-config.ts; the results are summed up
// by bench-summary.ts, bench-targets.ts and bench-observations.ts and rendered by report.ts.

const BENCH_DIR = path.join(REPO_ROOT, 'bench');
const WORK_DIR = path.join(BENCH_DIR, '.work');
// The sample media kept next to the repository (friday.mp4 for the captions); optional.
const SHARED_MEDIA_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'media');
const FFMPEG = 'ffmpeg';
const FFPROBE = 'ffprobe';
const SERVER_ENV = { PREFETCH_SEGMENTS: '0' };

const benchStartedAt = performance.now();
const log = (line: string) => process.stderr.write(`[bench +${((performance.now() - benchStartedAt) / 1000).toFixed(1)}s] ${line}\n`);

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

const main = async (): Promise<number> => {
  const options = parseBenchOptions(process.argv.slice(2), BENCH_DIR);
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (options.only === 'quality') return runQualityBench({ outDir: options.outDir, workDir: WORK_DIR, sharedMediaDir: SHARED_MEDIA_DIR, log });
  const { quick, only, mode, uploadRuns, outDir, skipBaseline, runs, samples, captionsRuns, playbackRuns, deliveryOptions, loadOptions, capacityOptions } = options;
  const { scaledRequested, topologies, waitIdleMinutes, ingestTimings, readySpecs, specs } = options;
  const { doReady, doSegments, doDelivery, doUploads, doPlayback, doLoad, doStatic, doCaptions, doLive, doCollector, doCapacity, doChaos, mainServer, doScaled } = options.parts;
  const loadBefore = (label: string) =>
    waitIdleMinutes > 0 ? waitForQuiet({ label, maxWaitMs: waitIdleMinutes * 60_000, log }) : sampleLoad(label);
  const serverEnv: Record<string, string> = { ...SERVER_ENV, ...(ingestTimings ? { LOG_LEVEL: 'info' } : {}) };
  installExitHandlers();
  const startedAt = new Date();
  const load: LoadSnapshot[] = [];
  let serverLogTail: string[] = [];
  // The captions phase calls the server's pipeline in this process (processes it spawns are tracked
  // by the node runtime, as in the server).
  installNodeRuntime(createNodeRuntime());

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
  let server: KeyframeProcess | undefined;
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
  let capacity: BenchResults['capacity'] = doCapacity ? { status: 'skipped', reason: 'not reached' } : skipped('takes about 15 minutes');
  let captions: BenchResults['captions'] = doCaptions ? { status: 'skipped', reason: 'not reached' } : skipped('not run');
  let live: BenchResults['live'] = doLive ? { status: 'skipped', reason: 'not reached' } : skipped('takes about 15 minutes');
  let collector: BenchResults['collector'] = doCollector ? { status: 'skipped', reason: 'not reached' } : skipped('takes about 4 minutes');
  let chaos: BenchResults['chaos'] = doChaos ? { status: 'skipped', reason: 'not reached' } : skipped('takes about 15 minutes');

  // The main server's phases: idle memory, time-to-ready, segments, delivery.
  if (mainServer) {
    try {
      staticServer = await startStaticServer(Object.fromEntries(inputs.map((input) => [path.basename(input.path), input.path])));
      const urlOf = (input: BenchInput) => staticServer?.url(path.basename(input.path)) ?? '';
      webhooks = await WebhookReceiver.start(0, { verifySignatures: false });
      log(`starting the Keyframe server (${Object.entries(serverEnv).map(([key, value]) => `${key}=${value}`).join(' ')})…`);
      server = await startBenchServer({ env: serverEnv });
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
        await server.dispose();
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
        env: ingestTimings ? { LOG_LEVEL: 'info' } : {},
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
        env: ingestTimings ? { LOG_LEVEL: 'info' } : {},
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

  // Servers of its own, one per N, with default settings (prefetch on), like the load phase.
  if (doCapacity && loadInput) {
    load.push(await loadBefore('before capacity'));
    capacity = await phase('capacity', async () => {
      const video = loadInput.properties?.video;
      const frameRate = video?.frameRate ? Number(video.frameRate.split('/')[0]) / Number(video.frameRate.split('/')[1] ?? 1) : 30;
      const { result, serverLogTail: capacityLogTail } = await measureCapacity({
        env: options.serverLogLevel ? { LOG_LEVEL: options.serverLogLevel } : {},
        input: {
          label: loadInput.label,
          path: loadInput.path,
          durationSeconds: loadInput.probedDurationSeconds ?? loadInput.durationSeconds,
          width: video?.width ?? 1920,
          height: video?.height ?? 1080,
          frameRate: Number.isFinite(frameRate) && frameRate > 0 ? frameRate : 30,
        },
        options: capacityOptions,
        log,
      });
      serverLogTail = [...serverLogTail, ...capacityLogTail.map((line) => `[capacity server] ${line}`)];
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
      const { result, serverLogTail: liveServerLogTail } = await measureLiveOnFreshServer({ repoRoot: REPO_ROOT, workDir: WORK_DIR, options: options.liveOptions, log });
      serverLogTail = [...serverLogTail, ...liveServerLogTail.map((line) => `[live server] ${line}`)];
      return result;
    });
  }

  // On a server of its own behind a playback worker.
  if (doCollector) {
    load.push(await loadBefore('before collector'));
    collector = await phase('collector', async () => {
      const { result, serverLogTail: collectorLogTail } = await measureCollectorOnFreshServer({ log });
      serverLogTail = [...serverLogTail, ...collectorLogTail.map((line) => `[collector server] ${line}`)];
      return result;
    });
  }

  // A cluster of its own: private PostgreSQL and Redis, Swift behind a fault proxy, four nodes.
  if (doChaos) {
    load.push(await loadBefore('before chaos'));
    chaos = await phase('chaos', () => measureChaos({ options: options.chaosOptions, log }));
  }

  if (!skipBaseline && longInput) {
    load.push(await loadBefore('before baseline'));
    baseline = await phase('baseline', () =>
      runBaseline({ ffmpeg: FFMPEG, inputPath: longInput.path, inputDurationSeconds: longInput.durationSeconds, log }),
    );
  }
  load.push(await sampleLoad('end'));

  const outcomes = { idleMemory, timeToReady, segments, delivery, baseline, uploadThroughput, coldPlayback, staticRenditions, underLoad, capacity, scaled, captions, live, collector, chaos };
  const summary = summariseResults(outcomes);
  const targets = benchTargets(outcomes, options);
  const observations = benchObservations({ outcomes, phaseCpu, machine, load, staleSources, buildId, inputs });

  const finishedAt = new Date();
  const results: BenchResults = {
    schema: 'keyframe-bench/2',
    mode,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationSeconds: round((finishedAt.getTime() - startedAt.getTime()) / 1000, 1),
    command: `tsx harness/bench/run-bench.ts ${process.argv.slice(2).join(' ')}`.trim(),
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
      capacity: { ...capacityOptions, input: inputLabel(LOAD_INPUT) },
      dbPollMs: 20,
      scaled: { requested: scaledRequested, topologies },
      captions: { runsPerInput: captionsRuns },
      collector: DEFAULT_COLLECTOR_OPTIONS,
      chaos: options.chaosOptions,
      live: options.liveOptions,
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
    capacity,
    scaled,
    captions,
    live,
    collector,
    chaos,
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
  const failedPhases = [idleMemory, timeToReady, segments, delivery, baseline, uploadThroughput, coldPlayback, staticRenditions, underLoad, capacity, scaled, live, collector, chaos].filter((outcome) => outcome.status === 'error').length;
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
