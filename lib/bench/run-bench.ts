import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AssetDb } from './asset-db';
import { runBaseline } from './baseline';
import { measureColdPlaybackOnFreshServer } from './cold-playback';
import { keepAliveAgent } from './http';
import { ensureInput, type BenchInput } from './inputs';
import { ensureProductionBuild, KeyframeServer } from './keyframe-server';
import { machineInfo, phaseMeter, sampleLoad, waitForQuiet, type LoadSnapshot, type PhaseCpu } from './machine';
import { installExitHandlers, killEverythingSync, runCommand } from './processes';
import { renderMarkdown, type BenchResults, type PhaseOutcome, type Target } from './report';
import { measureSegments } from './segments';
import { startStaticServer, type StaticServer } from './static-server';
import { errorMessage, formatMs, ratio, round } from './stats';
import { measureThroughput } from './throughput';
import { measureTimeToReady, type ReadyInput } from './time-to-ready';
import { measureUploadThroughputOnFreshServer } from './upload-throughput';

// `npm run bench` (full, ~10+ min), `npm run bench -- --quick` (no 300 s input, no baseline) or
// `npm run bench -- --only upload-throughput` (direct uploads alone, a few minutes) or
// `--only time-to-ready` (the two inputs' time-to-ready alone).
// Progress goes to stderr; the markdown report to stdout, bench/results.md and bench/results.json.

const USAGE = `Usage: npm run bench -- [--quick | --skip-baseline | --only upload-throughput|time-to-ready|cold-playback] [--runs N] [--samples N] [--upload-runs N] [--playback-runs N] [--wait-idle M] [--out DIR] [--ingest-timings]

  --quick        skip the 300 s input and the ffmpeg baseline (for iteration)
  --only upload-throughput
                 run only the direct-upload section: a generated ~1.09 GB file uploaded as one
                 PUT and as 32 MiB chunks, MB/s and the server's peak RSS (a few minutes)
  --only time-to-ready
                 run only time-to-ready for the 30 s and 300 s inputs
  --only cold-playback
                 run only the cold playback: hls.js in Chromium plays 60 s of a fresh 300 s asset
  --playback-runs N
                 cold playbacks (default 3)
  --upload-runs N
                 1 GiB uploads per method (default 3; 1 with --quick)
  --skip-baseline
                 full run without the ffmpeg baseline (it takes minutes)
  --runs N       time-to-ready runs per input (default 3)
  --samples N    fresh assets per cold/warm segment sample (default 3)
  --wait-idle M  before each phase, wait up to M minutes until other work leaves the CPU quiet
                 (3 consecutive 1 s samples under 20 % busy); default 0 (just record the load)
  --out DIR      write results.json and results.md there instead of bench/
  --ingest-timings
                 run the server with LOG_LEVEL=info (instead of warn) and record its per-step
                 ingest timings (download, probe, decode check) with each time-to-ready sample
  --help         show this help`;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BENCH_DIR = path.join(REPO_ROOT, 'bench');
const WORK_DIR = path.join(BENCH_DIR, '.work');
const FFMPEG = 'ffmpeg';
const FFPROBE = 'ffprobe';
const SERVER_ENV = { PREFETCH_SEGMENTS: '0' };
const THROUGHPUT = { requests: 200, concurrency: 16 };
const SHORT_SECONDS = 30;
const COLD_PLAYBACK_SECONDS = 60;
const LONG_SECONDS = 300;
const LIMITS = { timeToReady30Ms: 1_000, ratio300To30: 1.3, coldSegment0Ms: 1_000, uploadPeakRssMB: 300, uploadRssGrowthMB: 50 };

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

// Ends the main server's phases early (--only time-to-ready).
class SkipRest extends Error {}

const main = async (): Promise<number> => {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      'skip-baseline': { type: 'boolean', default: false },
      only: { type: 'string' },
      'upload-runs': { type: 'string' },
      'playback-runs': { type: 'string' },
      runs: { type: 'string' },
      samples: { type: 'string' },
      'ingest-timings': { type: 'boolean', default: false },
      'wait-idle': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const quick = values.quick ?? false;
  const only = values.only;
  if (only !== undefined && only !== 'upload-throughput' && only !== 'time-to-ready' && only !== 'cold-playback') {
    throw new Error(`--only takes upload-throughput, time-to-ready or cold-playback (got "${only}")`);
  }
  const uploadsOnly = only === 'upload-throughput';
  const readyOnly = only === 'time-to-ready';
  const playbackOnly = only === 'cold-playback';
  const mode: BenchResults['mode'] = only ?? (quick ? 'quick' : 'full');
  const uploadRuns = positiveInt(values['upload-runs'], quick ? 1 : 3, 'upload-runs');
  const outDir = path.resolve(values.out ?? BENCH_DIR);
  const skipBaseline = quick || only !== undefined || (values['skip-baseline'] ?? false);
  const runs = positiveInt(values.runs, 3, 'runs');
  const samples = positiveInt(values.samples, 3, 'samples');
  const playbackRuns = positiveInt(values['playback-runs'], 3, 'playback-runs');
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
  for (const seconds of uploadsOnly ? [] : playbackOnly ? [LONG_SECONDS] : quick ? [SHORT_SECONDS] : [SHORT_SECONDS, LONG_SECONDS]) {
    inputs.push(await ensureInput({ durationSeconds: seconds, workDir: WORK_DIR, ffmpeg: FFMPEG, ffprobe: FFPROBE, log }));
  }
  const shortInput = inputs.find((input) => input.durationSeconds === SHORT_SECONDS);
  const longInput = inputs.find((input) => input.durationSeconds === LONG_SECONDS);
  if (!shortInput && !uploadsOnly && !playbackOnly) throw new Error('the 30 s input is missing');

  let staticServer: StaticServer | undefined;
  let server: KeyframeServer | undefined;
  let db: AssetDb | undefined;
  const agent = keepAliveAgent(4);
  const notRun = { status: 'skipped' as const, reason: uploadsOnly || playbackOnly ? `--only ${only}` : 'not reached' };
  let timeToReady: BenchResults['timeToReady'] = notRun;
  let segments: BenchResults['segments'] = notRun;
  let throughput: BenchResults['throughput'] = notRun;
  let throughputReference: BenchResults['throughputReference'] = notRun;
  let baseline: BenchResults['baseline'] = skipBaseline
    ? { status: 'skipped', reason: values.only ? `--only ${values.only}` : quick ? '--quick' : '--skip-baseline' }
    : { status: 'skipped', reason: 'not reached' };
  let uploadThroughput: BenchResults['uploadThroughput'] = { status: 'skipped', reason: 'not reached' };
  let coldPlayback: BenchResults['coldPlayback'] = { status: 'skipped', reason: 'not reached' };

  // The main server's phases; --only upload-throughput runs none of them.
  if (!uploadsOnly && shortInput) {
    try {
      staticServer = await startStaticServer(Object.fromEntries(inputs.map((input) => [path.basename(input.path), input.path])));
      const urlOf = (input: BenchInput) => staticServer?.url(path.basename(input.path)) ?? '';
      log(`starting the Keyframe server (${Object.entries(serverEnv).map(([key, value]) => `${key}=${value}`).join(' ')})…`);
      server = await KeyframeServer.start({ repoRoot: REPO_ROOT, env: serverEnv });
      const token = await server.createToken();
      db = new AssetDb(server.dataDir);
      const readyInputs: ReadyInput[] = inputs.map((input) => ({ label: `${input.durationSeconds} s`, durationSeconds: input.durationSeconds, url: urlOf(input) }));

      load.push(await loadBefore('before time-to-ready'));
      const activeServer = server;
      const activeDb = db;
      timeToReady = await phase('time-to-ready', () =>
        measureTimeToReady({ server: activeServer, token, db: activeDb, inputs: readyInputs, runs, log }),
      );

      if (readyOnly) throw new SkipRest();
      load.push(await loadBefore('before segments'));
      segments = await phase('segments', () =>
        measureSegments({ server: activeServer, token, db: activeDb, inputUrl: urlOf(shortInput), samples, agent, log }),
      );

      const warmUrl = segments.status === 'ok' ? segments.value.warmSegmentUrl : null;
      if (warmUrl) {
        load.push(await loadBefore('before throughput'));
        throughput = await phase('throughput', async () => {
          const result = await measureThroughput({ url: warmUrl, ...THROUGHPUT });
          log(`throughput: ${result.requestsPerSecond} req/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms`);
          return result;
        });
        // Reference: the same stored file from a plain node:http server, with the same client.
        const [playbackId, rendition, file] = new URL(warmUrl).pathname.split('/').slice(1);
        const assetId = segments.status === 'ok' ? segments.value.assets.find((asset) => asset.playbackId === playbackId)?.assetId : undefined;
        if (assetId && rendition && file && staticServer) {
          const stored = path.join(activeServer.dataDir, 'assets', assetId, 'hls', rendition, file);
          staticServer.add('reference-segment.m4s', stored);
          const referenceUrl = staticServer.url('reference-segment.m4s');
          throughputReference = await phase('throughput reference', async () => {
            const result = await measureThroughput({ url: referenceUrl, ...THROUGHPUT });
            log(`throughput reference (plain node:http): ${result.requestsPerSecond} req/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms`);
            return result;
          });
        }
      } else {
        throughput = { status: 'skipped', reason: 'no warm segment (the segment phase did not complete)' };
      }
    } catch (error) {
      if (error instanceof SkipRest) {
        segments = throughput = { status: 'skipped', reason: '--only time-to-ready' };
      } else {
        log(`setup failed: ${errorMessage(error)}`);
      const failure = { status: 'error' as const, error: errorMessage(error) };
      if (timeToReady.status === 'skipped') timeToReady = failure;
      if (segments.status === 'skipped') segments = failure;
        if (throughput.status === 'skipped') throughput = failure;
      }
    } finally {
      agent.destroy();
      db?.close();
      if (server) {
        serverLogTail = server.logs().split('\n').filter(Boolean).slice(-40);
        await server.stop();
      }
      await staticServer?.close();
    }
  }

  // On a server of its own (see measureUploadThroughputOnFreshServer), after the main one stopped.
  const skipUploads = readyOnly || playbackOnly;
  if (!skipUploads) load.push(await loadBefore('before upload throughput'));
  uploadThroughput = skipUploads ? { status: 'skipped', reason: `--only ${only}` } : await phase('upload throughput', async () => {
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

  // Also on a server of its own: default settings (prefetch on), as a viewer would meet it.
  if (longInput && (only === undefined || playbackOnly)) {
    load.push(await loadBefore('before cold playback'));
    const input = longInput;
    coldPlayback = await phase('cold playback', async () => {
      const { result, serverLogTail: playbackServerLogTail } = await measureColdPlaybackOnFreshServer({
        repoRoot: REPO_ROOT,
        env: values['ingest-timings'] ? { LOG_LEVEL: 'info' } : {},
        inputPath: input.path,
        seconds: COLD_PLAYBACK_SECONDS,
        runs: playbackRuns,
        log,
      });
      serverLogTail = [...serverLogTail, ...playbackServerLogTail.map((line) => `[cold-playback server] ${line}`)];
      return result;
    });
  } else {
    coldPlayback = { status: 'skipped', reason: only ? `--only ${only}` : '--quick (no 300 s input)' };
  }

  if (!skipBaseline && longInput) {
    load.push(await loadBefore('before baseline'));
    baseline = await phase('baseline', () =>
      runBaseline({ ffmpeg: FFMPEG, inputPath: longInput.path, inputDurationSeconds: longInput.durationSeconds, log }),
    );
  }
  load.push(await sampleLoad('end'));

  // Summary, targets, observations
  const medians = timeToReady.status === 'ok' ? timeToReady.value.medians : {};
  const short = medians[`${SHORT_SECONDS} s`];
  const long = medians[`${LONG_SECONDS} s`];
  const ratio300To30 = timeToReady.status === 'ok' ? timeToReady.value.ratioLongToShort : null;
  const first = segments.status === 'ok' ? segments.value.firstListed : null;
  const baselineMs = baseline.status === 'ok' ? baseline.value.wallMs : null;
  const upload = uploadThroughput.status === 'ok' ? uploadThroughput.value : null;
  const summary: BenchResults['summary'] = {
    timeToReadyMs: Object.fromEntries(
      Object.entries(medians).map(([label, value]) => [label, { serverSide: value.serverMs, clientObserved: value.clientMs }]),
    ),
    ratio300To30,
    firstListedVariant: first?.rung ?? null,
    firstListedColdSegment0Ms: first?.coldMs ?? null,
    firstListedColdSegment0DirectMs: first?.coldDirectMs ?? null,
    firstListedInitPlusColdMs: first?.initPlusColdMs ?? null,
    firstListedStartupMs: segments.status === 'ok' ? segments.value.startup.medianTotalMs : null,
    baselineMs,
    ratioTimeToReady300ToBaseline: ratio(long?.serverMs ?? null, baselineMs) === null ? null : round((long?.serverMs ?? 0) / (baselineMs ?? 1), 5),
    warmSegmentRequestsPerSecond: throughput.status === 'ok' ? throughput.value.requestsPerSecond : null,
    uploadSinglePutMegabytesPerSecond: upload?.medians['single PUT'].megabytesPerSecond ?? null,
    uploadChunkedMegabytesPerSecond: upload?.medians['32 MiB chunks'].megabytesPerSecond ?? null,
    uploadServerPeakRssMB: upload?.peakRssMB ?? null,
    coldPlaybackMaxStalls: coldPlayback.status === 'ok' ? coldPlayback.value.maxStalls : null,
  };

  // Whether a target passed follows from its value and limit (null: not measured).
  const target = (spec: Omit<Target, 'pass'>): Target => ({ ...spec, pass: spec.value === null ? null : spec.value <= spec.limit });
  const firstRung = segments.status === 'ok' ? segments.value.rungs[0] : undefined;
  const initEncodesSegment0 = firstRung !== undefined && !firstRung.segment0OnDiskAfterInit.startsWith('0/');
  const uploadTargets: Target[] = [
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
  ];
  const mainServerTargets: Target[] = [
    target({
      id: 'time_to_ready_30s',
      description: 'Time to ready, 30 s input (median, server-side)',
      value: short?.serverMs ?? null,
      limit: LIMITS.timeToReady30Ms,
      unit: 'ms',
      note: short ? `client-observed median ${formatMs(short.clientMs)}` : undefined,
    }),
    target({
      id: 'ratio_300s_to_30s',
      description: 'Time to ready, median(300 s) / median(30 s), server-side',
      value: ratio300To30?.serverSide ?? null,
      limit: LIMITS.ratio300To30,
      unit: 'ratio',
      note: quick ? 'not measured in a --quick run' : ratio300To30 ? `client-observed ${ratio300To30.clientObserved}` : undefined,
    }),
    target({
      id: 'cold_segment0_first_listed',
      description: `Cold segment 0 of the first-listed variant (${first?.rung ?? '?'}), player order`,
      value: first?.coldMs ?? null,
      limit: LIMITS.coldSegment0Ms,
      unit: 'ms',
      note: first
        ? `TTLB of the 0.m4s request after multivariant → playlist → init.mp4${initEncodesSegment0 ? ` (segment 0 was already on disk when it was sent in ${firstRung?.segment0OnDiskAfterInit} samples)` : ''}; ` +
          `init.mp4 took ${formatMs(first.initMs)}; multivariant request → last byte of segment 0 ${formatMs(segments.status === 'ok' ? segments.value.startup.medianTotalMs : null)}`
        : undefined,
    }),
    target({
      id: 'cold_segment0_first_listed_segment_first',
      description: `Cold segment 0 of the first-listed variant (${first?.rung ?? '?'}), requested before anything else`,
      value: first?.coldDirectMs ?? null,
      limit: LIMITS.coldSegment0Ms,
      unit: 'ms',
      note: 'not one of the brief\'s targets: the same limit applied to the full on-demand encode of segment 0',
    }),
  ];
  const playbackTarget = target({
    id: 'cold_playback_stalls',
    description: `Stalls after the first frame, ${COLD_PLAYBACK_SECONDS} s cold playback in hls.js/Chromium (worst of ${playbackRuns})`,
    value: coldPlayback.status === 'ok' ? coldPlayback.value.maxStalls : null,
    limit: 0,
    unit: 'count',
    note: coldPlayback.status === 'ok' ? `per run: ${coldPlayback.value.runs.map((run) => run.stalls).join(', ')}` : undefined,
  });
  const targets = uploadsOnly
    ? uploadTargets
    : playbackOnly
      ? [playbackTarget]
      : readyOnly
        ? mainServerTargets.slice(0, 2)
        : [...mainServerTargets, ...uploadTargets, playbackTarget];

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
  if (initEncodesSegment0) {
    observations.push(
      `In player order, segment 0 of ${firstRung?.rung} was already on disk before its 0.m4s request in ${firstRung?.segment0OnDiskAfterInit} samples ` +
        '(the multivariant request starts encoding it, and init.mp4 is produced by encoding segment 0), so that "cold" request was a disk read; ' +
        'the cost moved into the init.mp4 request. The segment-first column is the full on-demand encode.',
    );
  }
  if (segments.status === 'ok') {
    const others = segments.value.rungs.slice(1).filter((rung) => !rung.segment0OnDiskAfterInit.startsWith('0/'));
    if (others.length > 0) {
      observations.push(
        `init.mp4 of ${others.map((rung) => rung.rung).join(', ')} encoded segment 0 as a side effect (on disk after init: ` +
          `${others.map((rung) => `${rung.rung} ${rung.segment0OnDiskAfterInit}`).join(', ')}), so "cold" segment 0 there is a disk read too.`,
      );
    }
  }
  if (first && !first.consistentAcrossSamples) observations.push('The first-listed variant differed between samples.');
  if (timeToReady.status === 'ok') {
    const unsettled = timeToReady.value.samples.filter((sample) => sample.settle.timedOut);
    if (unsettled.length > 0) observations.push(`Post-ready work did not settle within 3 min after ${unsettled.length} asset(s).`);
  }
  if (throughput.status === 'ok') {
    const value = throughput.value;
    if (value.failed > 0) observations.push(`${value.failed} of ${value.requests} throughput requests failed: ${JSON.stringify(value.statusCounts)}.`);
    if (value.socketsUsed > value.concurrency) {
      observations.push(`Throughput requests used ${value.socketsUsed} connections for concurrency ${value.concurrency}: keep-alive was not honoured.`);
    }
  }

  const finishedAt = new Date();
  const results: BenchResults = {
    schema: 'keyframe-bench/1',
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
      throughput: THROUGHPUT,
      uploadThroughput: { runsPerMethod: uploadRuns },
      coldPlayback: { runs: playbackRuns, seconds: COLD_PLAYBACK_SECONDS },
      dbPollMs: 20,
    },
    inputs,
    timeToReady,
    segments,
    throughput,
    throughputReference,
    baseline,
    uploadThroughput,
    coldPlayback,
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
  const failedPhases = [timeToReady, segments, throughput, baseline, uploadThroughput].filter((outcome) => outcome.status === 'error').length;
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
