import type { BaselineResult } from './baseline';
import type { CaptionsResult } from './captions';
import type { ColdPlaybackResult } from './cold-playback';
import type { DeliveryOptions, DeliveryResult, DeliveryServerName } from './delivery';
import type { IdleMemory } from './idle-memory';
import type { CollectorOptions, CollectorResult } from './collector';
import { renderCollector } from './collector-report';
import type { LiveOptions, LiveResult } from './live';
import { renderLive } from './live-report';
import type { LoadOptions, LoadResult, Spread, ViewerPassResult } from './load';
import type { BenchInput } from './inputs';
import type { LoadSnapshot, MachineInfo, PhaseCpu } from './machine';
import type { ScaledResult } from './scaled';
import { renderScaled } from './scaled-report';
import type { SegmentsResult } from './segments';
import type { StaticRenditionsResult } from './static-renditions';
import { formatLatency, formatMs, formatRatio, round } from './stats';
import type { AudioTracksCost, ReadyRatio, TimeToReadyResult } from './time-to-ready';
import type { UploadThroughputResult } from './upload-throughput';

// The results document (bench/results.json) and its markdown rendering (bench/results.md).

export type PhaseOutcome<T> = { status: 'ok'; value: T } | { status: 'error'; error: string } | { status: 'skipped'; reason: string };

export type Target = {
  id: string;
  description: string;
  value: number | null;
  limit: number;
  /** The value must be at least the limit (default: at most). */
  atLeast?: boolean;
  unit: 'ms' | 'ratio' | 'MB' | 'count';
  pass: boolean | null;
  note?: string;
};

export type BenchResults = {
  schema: 'keyframe-bench/2';
  mode: 'full' | 'quick' | 'upload-throughput' | 'time-to-ready' | 'segments' | 'cold-playback' | 'delivery' | 'load' | 'static-renditions' | 'captions' | 'live' | 'collector';
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  command: string;
  repo: { root: string; gitHead: string; uncommittedFiles: number; buildId: string | null; buildCreated: boolean; buildOlderThanSources: string[] };
  machine: MachineInfo;
  load: LoadSnapshot[];
  phaseCpu: PhaseCpu[];
  config: {
    server: Record<string, string>;
    timeToReadyRuns: number;
    segmentSamples: number;
    delivery: DeliveryOptions;
    uploadThroughput: { runsPerMethod: number };
    coldPlayback: { runs: number; seconds: number; inputs: string[] };
    underLoad: LoadOptions & { input: string };
    dbPollMs: number;
    scaled: { requested: boolean; topologies: string[] };
    captions: { runsPerInput: number };
    live: LiveOptions;
    collector: CollectorOptions;
  };
  inputs: BenchInput[];
  /** The main server's resident memory a few seconds after start, before any work. */
  idleMemory: PhaseOutcome<IdleMemory>;
  timeToReady: PhaseOutcome<TimeToReadyResult>;
  segments: PhaseOutcome<SegmentsResult>;
  /** Cached segment and playlists from Keyframe, nginx and plain node under the same load. */
  delivery: PhaseOutcome<DeliveryResult>;
  baseline: PhaseOutcome<BaselineResult>;
  /** Direct uploads of a ~1.09 GB file on a server of its own: MB/s and the server's memory. */
  uploadThroughput: PhaseOutcome<UploadThroughputResult>;
  /** hls.js in Chromium plays the first minute of fresh assets (clean and camera-like) on a default server. */
  coldPlayback: PhaseOutcome<ColdPlaybackResult>;
  /** Request → ready of highest.mp4, cold and with the rung's segments cached. */
  staticRenditions: PhaseOutcome<StaticRenditionsResult>;
  /** Simulated viewers on fresh and on cached assets, and a burst of creates, on a server of its own. */
  underLoad: PhaseOutcome<LoadResult>;
  /** `--scaled`: time-to-ready and segments again on PostgreSQL + Redis + S3, next to the embedded default's. */
  scaled: PhaseOutcome<ScaledResult>;
  /** Caption generation (WAV extraction + speech recognition + cues): CPU and wall-clock seconds per audio second. */
  captions: PhaseOutcome<CaptionsResult>;
  /** Live streaming on a server of its own: latency and stalls per mode, connect → playable, CPU per stream against plain ffmpeg, concurrent streams. */
  live: PhaseOutcome<LiveResult>;
  /** mux-embed beacons at a fixed rate: answers, latency, views written, server memory. */
  collector: PhaseOutcome<CollectorResult>;
  summary: {
    timeToReadyMs: Record<string, { serverSide: number | null; clientObserved: number | null; dbPoll: number | null }>;
    timeToReadyRatios: ReadyRatio[];
    /** What extra audio streams add to time-to-ready (median of the file with them − median of the same file with one). */
    timeToReadyAudioTracks?: AudioTracksCost[];
    idleRssMB: number | null;
    firstListedVariant: string | null;
    firstListedColdSegment0Ms: number | null;
    firstListedColdSegment0DirectMs: number | null;
    firstListedInitPlusColdMs: number | null;
    firstListedStartupMs: number | null;
    delivery: Record<string, { keyframeRequestsPerSecond: number | null; nginxRequestsPerSecond: number | null; requestsPerSecondVsNginx: number | null; p99VsNginx: number | null }>;
    baselineMs: number | null;
    ratioTimeToReady300ToBaseline: number | null;
    uploadSinglePutMegabytesPerSecond: number | null;
    uploadChunkedMegabytesPerSecond: number | null;
    uploadServerPeakRssMB: number | null;
    coldPlaybackMaxStalls: Record<string, number | null>;
    underLoad: {
      freshStalls: number;
      freshVideoFetchP99Ms: number | null;
      freshAudioFetchP99Ms: number | null;
      cachedStalls: number;
      cachedVideoFetchP99Ms: number | null;
      cachedAudioFetchP99Ms: number | null;
      burstFirstCreateToLastReadyMs: number | null;
    } | null;
    /** Median CPU seconds per audio second, per captions input. */
    captionsCpuSecondsPerAudioSecond: Record<string, number | null>;
    live: {
      /** Per latency mode: median and p95 glass-to-glass seconds (and the median with exact program date times), stalls in the played minute, median connect → playable ms. */
      modes: Record<string, { medianLatencySeconds: number | null; publisherClockLatencySeconds: number | null; p95LatencySeconds: number | null; stalls: number | null; medianPlayableMs: number | null }>;
      /** Per input: CPU seconds per second of Keyframe (packager + server) and of the plain ffmpeg peer. */
      cpuPerStream: Record<string, { keyframe: number | null; packager: number | null; server: number | null; peer: number | null; keyframeVsPeer: number | null }>;
      /** Per input: the most concurrent streams that held real time. */
      concurrentStreamsHeld: Record<string, number | null>;
    } | null;
    collector: {
      validRefused: number;
      validP99Ms: number | null;
      viewsStored: number | null;
      viewsSent: number;
      rssMB: { before: number | null; peak: number | null; afterWrites: number | null; afterIdle: number | null };
    } | null;
  };
  targets: Target[];
  observations: string[];
  serverLogTail: string[];
};

const cell = (value: string | number | null | undefined) => (value === null || value === undefined ? 'n/a' : String(value));

const table = (header: string[], rows: Array<Array<string | number | null | undefined>>): string =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join(
    '\n',
  );

const outcomeNote = (outcome: PhaseOutcome<unknown>): string | null =>
  outcome.status === 'error' ? `**Failed:** ${outcome.error}` : outcome.status === 'skipped' ? `_Skipped: ${outcome.reason}_` : null;

const passCell = (target: Target) => (target.pass === null ? 'not measured' : target.pass ? '✅ pass' : '❌ fail');

const formatTargetNumber = (target: Target, value: number | null) => {
  if (target.unit === 'ms') return formatMs(value);
  if (value === null) return 'n/a';
  if (target.unit === 'MB') return `${value} MB`;
  return target.unit === 'count' ? String(value) : formatRatio(value);
};
const targetValue = (target: Target) => formatTargetNumber(target, target.value);
const targetLimit = (target: Target) => `${target.atLeast ? '≥' : '≤'} ${formatTargetNumber(target, target.limit)}`;

export const renderMarkdown = (results: BenchResults): string => {
  const parts: string[] = [];
  parts.push(`# Keyframe benchmark (${results.mode} run)`);
  parts.push(
    `${results.startedAt} · ${results.machine.cpuModel} · ${results.machine.cores} cores · Node ${results.machine.node} · ` +
      `${results.machine.ffmpeg.replace(/ Copyright.*/, '')} · git ${results.repo.gitHead.slice(0, 7)}` +
      `${results.repo.uncommittedFiles > 0 ? ` + ${results.repo.uncommittedFiles} uncommitted files` : ''} · ${round(results.durationSeconds, 0)} s`,
  );

  parts.push('## Targets');
  parts.push(table(['Target', 'Measured', 'Limit', 'Result'], results.targets.map((target) => [target.description, targetValue(target), targetLimit(target), passCell(target)])));
  const targetNotes = results.targets.filter((target) => target.note).map((target) => `- ${target.description}: ${target.note}`);
  if (targetNotes.length > 0) parts.push(targetNotes.join('\n'));

  parts.push('## Inputs');
  if (results.inputs.length > 0) {
    parts.push(
      table(
        ['Input', 'Size', 'Duration', 'Video', 'Video bitrate', 'B-frames (first 5 s)', 'Keyframe interval', 'Audio', 'Top-level boxes', 'File'],
        results.inputs.map((input) => {
          const props = input.properties;
          const video = props?.video;
          const audio = props?.audio;
          return [
            input.label,
            `${round(input.bytes / 1e6, 1)} MB`,
            input.probedDurationSeconds === null ? 'n/a' : `${round(input.probedDurationSeconds, 2)} s`,
            video ? `${video.codec} ${video.profile}, ${video.width}x${video.height}, ${video.frameRate} fps, ${video.pixelFormat}` : 'n/a',
            video?.bitrateKbps ? `${round(video.bitrateKbps / 1000, 2)} Mb/s` : 'n/a',
            video ? `${video.bFrames} of ${video.framesInspected} (${round((video.bFrameShare ?? 0) * 100, 0)} %)` : 'n/a',
            video?.keyframeIntervalFrames ? `${video.keyframeIntervalFrames} frames (${video.keyframeIntervalSeconds} s)` : 'n/a',
            audio ? `${audio.codec} ${audio.profile ?? ''} ${audio.channels} ch ${audio.sampleRate} Hz ${audio.bitrateKbps} kb/s` : 'none',
            props ? `${props.topLevelBoxes.join(' ')} (moov ${props.moov ?? '?'})` : 'n/a',
            `\`${input.path.split('/').at(-1) ?? ''}\`${input.reused ? '' : ` (generated in ${formatMs(input.generateMs)})`}`,
          ];
        }),
      ),
    );
    parts.push(
      'Properties as ffprobe reads them from the files (bitrates are stream averages; B-frames and keyframe interval from the decoded frame types of the first 5 s; ' +
        'box order read from the file). The ffmpeg commands are in `results.json` (`inputs[].recipe`).',
    );
  }

  const formatSignedMs = (ms: number | null) => (ms === null ? 'n/a' : `${ms >= 0 ? '+' : '−'}${formatMs(Math.abs(ms))}`);
  parts.push('## Time to ready');
  const ttr = results.timeToReady;
  if (ttr.status === 'ok') {
    const labels = Object.keys(ttr.value.medians);
    parts.push(
      table(
        ['Input', 'Runs: server (readyAt − createdAt)', 'Median server', 'Runs: client (create sent → ready webhook)', 'Median client', 'Median DB poll'],
        labels.map((label) => {
          const samples = ttr.value.samples.filter((sample) => sample.input === label);
          const median = ttr.value.medians[label];
          return [
            label,
            samples.map((sample) => formatMs(sample.serverMs)).join(', '),
            `**${formatMs(median?.serverMs)}**`,
            samples.map((sample) => (sample.clientMs === null ? 'none' : formatMs(sample.clientMs))).join(', '),
            `**${formatMs(median?.clientMs)}**`,
            formatMs(median?.pollMs),
          ];
        }),
      ),
    );
    if (ttr.value.ratios.length > 0) {
      parts.push(
        ttr.value.ratios
          .map(
            (entry) =>
              `- ${entry.group}: median(${entry.long}) / median(${entry.short}) = **${formatRatio(entry.serverSide)}** server-side, ${formatRatio(entry.clientObserved)} client-observed`,
          )
          .join('\n'),
      );
    }
    for (const entry of ttr.value.audioTracks ?? []) {
      parts.push(
        `- ${entry.audioTracks} audio streams instead of 1 (${entry.input} vs ${entry.oneTrackInput}, same video): ` +
          `**${formatSignedMs(entry.addedServerMs)}** to ready server-side, ${formatSignedMs(entry.addedClientMs)} client-observed (difference of the medians)`,
      );
    }
    parts.push(
      `Assets created one at a time, inputs interleaved, ${results.config.timeToReadyRuns} runs each, after one uncounted warm-up ` +
        `(${ttr.value.warmup ? `${ttr.value.warmup.input}, ${formatMs(ttr.value.warmup.serverMs)}` : 'none'}); each run waits until the server's post-ready work ` +
        '(the audio encode) is done. Client = the `video.asset.ready` webhook arriving at a receiver the benchmark runs; DB poll = the first 20 ms poll of the database that saw `ready`.',
    );
  } else parts.push(outcomeNote(ttr) ?? '');

  parts.push('## Idle memory');
  const idle = results.idleMemory;
  if (idle.status === 'ok') {
    const value = idle.value;
    parts.push(
      table(
        ['Measurement', 'RSS', 'of which anonymous', 'When'],
        [
          ['this run', `**${value.rssMB} MB**`, `${value.anonMB} MB`, `${value.settleMs / 1000} s after /api/health answered, before any other request (median of ${value.samples.length} samples; VmHWM ${value.hwmMB} MB)`],
          ['previous', `${value.previous.rssMB} MB`, `${value.previous.anonMB} MB`, value.previous.source],
        ],
      ),
    );
    parts.push(`Server process ${value.pid} (${value.identifiedBy}); VmRSS and RssAnon from /proc/<pid>/status.`);
    const workers = value.playbackWorkers ?? [];
    if (workers.length > 0) {
      const total = workers.reduce((sum, worker) => sum + (worker.rssMB ?? 0), 0);
      parts.push(
        `Beside it, ${workers.length} playback worker(s) (PLAYBACK_WORKERS): ${workers.map((worker) => `${worker.rssMB} MB`).join(', ')} — ` +
          `**${Math.round((value.rssMB ?? 0) + total)} MB** for the whole server (RSS counts shared pages once per process, so this overstates it).`,
      );
    }
  } else parts.push(outcomeNote(idle) ?? '');

  parts.push('## Segment 0: cold vs warm time to last byte');
  const segments = results.segments;
  if (segments.status === 'ok') {
    const value = segments.value;
    parts.push(
      `Medians of ${value.samples} fresh 30 s asset(s) per protocol, server with PREFETCH_SEGMENTS=0. ` +
        `First-listed variant: **${value.firstListed?.rung ?? 'n/a'}** (${value.firstListed?.resolution ?? '?'})` +
        `${value.firstListed && !value.firstListed.consistentAcrossSamples ? ' — NOT the same in every sample' : ''}; ` +
        `its cold segment 0: **${formatMs(value.firstListed?.coldMs)}** in player order, ${formatMs(value.firstListed?.coldDirectMs)} segment-first.`,
    );
    parts.push(
      table(
        ['Rung', 'Resolution', 'Listed #', 'init.mp4', 'Seg 0 cold', 'Seg 0 warm', 'init + cold', 'Seg 0 cold, segment-first', 'Seg 0 on disk after init', 'Seg 0 bytes'],
        value.rungs.map((rung) => [
          rung.rung,
          rung.resolution,
          rung.listedPosition + 1,
          formatMs(rung.initMs),
          formatMs(rung.coldMs),
          formatMs(rung.warmMs),
          formatMs(rung.initPlusColdMs),
          formatMs(rung.coldDirectMs),
          rung.segment0OnDiskAfterInit,
          rung.segmentBytes,
        ]),
      ),
    );
    parts.push(
      '_Player order_ (columns init.mp4 … init + cold): the multivariant playlist, then per variant in listed order its playlist, init.mp4, ' +
        '0.m4s (cold), 0.m4s again (warm). _Segment-first_: on a second fresh asset, 0.m4s of each rung before anything else ' +
        '(no multivariant playlist, no init.mp4), i.e. the whole on-demand encode.',
    );
    if (value.startup.samples.length > 0) {
      parts.push(
        `Player-observed start of the first variant (multivariant request → last byte of its segment 0, requests back to back): ` +
          `median **${formatMs(value.startup.medianTotalMs)}** (` +
          value.startup.samples
            .map(
              (entry) =>
                `${formatMs(entry.totalMs)} = multivariant ${formatMs(entry.multivariantMs)} + playlist ${formatMs(entry.renditionPlaylistMs)} + ` +
                `init ${formatMs(entry.initMs)} + seg 0 ${formatMs(entry.segment0Ms)}`,
            )
            .join('; ') +
          '). Audio init/segment requests are not included.',
      );
    }
  } else parts.push(outcomeNote(segments) ?? '');

  parts.push('## Peer baseline: full-ladder encode before playback');
  const baseline = results.baseline;
  if (baseline.status === 'ok') {
    parts.push(
      table(
        ['What', 'Wall time', 'Speed', 'Time-to-ready(300 s) / baseline'],
        [
          [
            `ffmpeg, 5 rungs + audio, 300 s input (${baseline.value.method})`,
            formatMs(baseline.value.wallMs),
            `${baseline.value.realtimeFactor}× real time`,
            results.summary.ratioTimeToReady300ToBaseline === null || results.summary.ratioTimeToReady300ToBaseline === 0
              ? 'n/a'
              : `${results.summary.ratioTimeToReady300ToBaseline} (the full encode takes ${Math.round(1 / results.summary.ratioTimeToReady300ToBaseline)}× as long)`,
          ],
        ],
      ),
    );
  } else parts.push(outcomeNote(baseline) ?? '');

  parts.push('## Cached delivery: Keyframe next to nginx');
  const delivery = results.delivery;
  if (delivery.status === 'ok') {
    const value = delivery.value;
    const generator = value.loadGenerator;
    parts.push(
      `Load: ${generator.tool === 'wrk' ? `\`wrk -t ${generator.threads} -c ${generator.connections} -d ${generator.secondsPerRun}s --latency\` (${generator.version.replace(/ Copyright.*/, '')}${generator.installedByBench ? `, installed by the benchmark from the Debian package ${generator.installedByBench}` : ''})` : `node:http keep-alive client, ${generator.connections} connections, ${generator.secondsPerRun} s`} ` +
        `per run; per resource one uncounted ${generator.warmupSeconds} s warm-up per server, then ${generator.rounds} rounds of Keyframe → nginx → plain node, medians over the rounds. ` +
        `nginx: ${value.nginx.available ? `${value.nginx.version} (\`${value.nginx.path}\`${value.nginx.installedByBench ? `, installed by the benchmark from the Debian package ${value.nginx.installedByBench}` : ''}), started by the benchmark: \`daemon off\`, \`worker_processes auto\`, sendfile, keep-alive, no access log; the config is in \`results.json\`` : `**not run**: ${value.nginx.reason}`}. ` +
        `Asset \`${value.asset.playbackId}\`, rung ${value.asset.rung}; every server sends the same bytes (checked by SHA-256). The load generator shares the two cores with the server under test.`,
    );
    if (generator.note) parts.push(`**${generator.note}**`);
    const label: Record<DeliveryServerName, string> = { keyframe: 'Keyframe', nginx: 'nginx', node: 'plain node:http' };
    const rows: Array<Array<string | number | null>> = [];
    for (const comparison of value.comparisons) {
      for (const name of ['keyframe', 'nginx', 'node'] as const) {
        const summary = comparison.servers[name];
        if (!summary) continue;
        const vs = name === 'keyframe' ? comparison.vsNginx : null;
        rows.push([
          name === 'keyframe' ? `${comparison.kind} (${comparison.bytes} bytes)` : '',
          label[name],
          summary.requestsPerSecond === null ? null : Math.round(summary.requestsPerSecond),
          formatLatency(summary.p50Ms),
          formatLatency(summary.p99Ms),
          summary.megabytesPerSecond === null ? null : round(summary.megabytesPerSecond, 1),
          summary.errors,
          vs ? `**${formatRatio(vs.requestsPerSecond)}**` : '',
          vs ? formatRatio(vs.p50) : '',
          vs ? `**${formatRatio(vs.p99)}**` : '',
        ]);
      }
    }
    parts.push(table(['Resource', 'Server', 'req/s', 'p50', 'p99', 'MB/s', 'Errors', 'req/s ÷ nginx', 'p50 ÷ nginx', 'p99 ÷ nginx'], rows));
    const perRound = value.comparisons.filter((comparison) => comparison.perRound.length > 0);
    if (perRound.length > 0) {
      parts.push(
        'Keyframe ÷ nginx per round (req/s; p99): ' +
          perRound
            .map((comparison) => `${comparison.kind} ${comparison.perRound.map((entry) => `${formatRatio(entry.requestsPerSecond)}; ${formatRatio(entry.p99)}`).join(' · ')}`)
            .join(' — ') +
          '.',
      );
    }
    parts.push(
      'Read: req/s ÷ nginx ≥ 0.5 means Keyframe serves at least half as many requests per second as nginx on the same machine; ' +
        'p99 ÷ nginx ≤ 3 means its slowest 1 % of responses take at most three times as long. The plain node row is the Node floor: ' +
        'the gap between it and Keyframe is Keyframe\'s own route, the gap between it and nginx is Node.',
    );
  } else parts.push(outcomeNote(delivery) ?? '');

  parts.push('## Direct upload throughput');
  const uploads = results.uploadThroughput;
  if (uploads.status === 'ok') {
    const value = uploads.value;
    const megabytes = (bytes: number) => round(bytes / 1e6, bytes < 1e8 ? 1 : 0);
    parts.push(
      `A ${megabytes(value.largeFile.bytes)} MB file (${value.largeFile.seconds} s of raw 1080p25 video in Matroska, generated in ` +
        `${formatMs(value.largeFile.generateMs)}) uploaded ${value.runs}× per method, interleaved, to a fresh server; MB = 10^6 bytes; ` +
        'throughput is first byte sent → last response received, from a Node client on the same cores as the server.',
    );
    parts.push(
      table(
        ['Method', 'Runs (MB/s)', 'Median MB/s', 'Median wall time', 'Requests', 'Server RSS peak (sampled)', 'of which anonymous', 'Asset'],
        (['single PUT', '32 MiB chunks'] as const).map((method) => {
          const samples = value.samples.filter((sample) => sample.file === 'large' && sample.method === method);
          const peak = (values: Array<number | null>) => {
            const known = values.filter((entry): entry is number => entry !== null);
            return known.length > 0 ? `${Math.max(...known)} MB` : 'n/a';
          };
          return [
            method === 'single PUT' ? 'one streamed PUT (curl -T)' : `${value.chunkBytes / 1024 ** 2} MiB Content-Range PUTs (UpChunk-style)`,
            samples.map((sample) => sample.megabytesPerSecond).join(', '),
            value.medians[method].megabytesPerSecond,
            formatMs(value.medians[method].wallMs),
            samples[0]?.requests,
            peak(samples.map((sample) => sample.peakSampledRssMB)),
            peak(samples.map((sample) => sample.peakSampledAnonMB)),
            [...new Set(samples.map((sample) => sample.assetStatus))].join(', '),
          ];
        }),
      ),
    );
    const small = value.samples.find((sample) => sample.file === 'small');
    parts.push(
      `Server memory (process ${value.server.pid}, ${value.server.identifiedBy}): RSS ${value.memoryAtStartMB.rss} MB ` +
        `(anonymous ${value.memoryAtStartMB.anon} MB) at start, before any request; ` +
        `peak ${value.rssFlatness.smallUploadPeakMB} MB (anonymous ${value.rssFlatness.smallUploadPeakAnonMB} MB) during a ${megabytes(value.smallFile.bytes)} MB upload` +
        `${small ? ` (${small.megabytesPerSecond} MB/s; after one uncounted warm-up upload)` : ''}, ` +
        `${value.rssFlatness.largeUploadPeakMB} MB (anonymous ${value.rssFlatness.largeUploadPeakAnonMB} MB) during the ${megabytes(value.largeFile.bytes)} MB ones ` +
        `(growth ${value.rssFlatness.growthMB} MB); VmHWM (the kernel's lifetime peak) **${value.peakRssMB} MB** at the end. ` +
        'VmRSS and RssAnon sampled every 50 ms from /proc/<pid>/status.',
    );
  } else parts.push(outcomeNote(uploads) ?? '');

  parts.push('## MP4 static renditions');
  const staticRenditions = results.staticRenditions;
  if (staticRenditions.status === 'ok') {
    const value = staticRenditions.value;
    parts.push(
      `\`highest.mp4\` of a fresh ${value.input} asset (${value.durationSeconds} s), timed from just before the POST to the arrival of ` +
        'the `video.asset.static_rendition.ready` webhook. Cold: none of the top rung\'s segments encoded yet (the build encodes them at ' +
        'background priority, then remuxes). Cached: the file deleted and requested again, its segments still stored (a copy-remux only).',
    );
    parts.push(
      table(
        ['Build', 'Request → ready', 'Size', 'Resolution'],
        [value.cold, value.cached].map((build, index) => [
          index === 0 ? 'cold' : 'segments cached',
          formatMs(build.readyMs),
          build.fileBytes === null ? null : `${(build.fileBytes / 1e6).toFixed(1)} MB`,
          build.width === null ? null : `${build.width}x${build.height}`,
        ]),
      ),
    );
    parts.push(`Cold ÷ cached: **${cell(value.coldToCachedRatio)}**.`);
    if (value.plainFfmpeg) {
      parts.push(
        `Peer, same run: one plain ffmpeg encode of the source to a 1080p MP4 with the server's 1080p rung settings took ` +
          `**${formatMs(value.plainFfmpeg.ms)}** (${(value.plainFfmpeg.fileBytes / 1e6).toFixed(1)} MB); cold build ÷ plain ffmpeg: ` +
          `**${cell(value.coldToPlainRatio)}**. The cold build encodes at background priority behind viewers, in 4 s segments.`,
      );
    }
  } else parts.push(outcomeNote(staticRenditions) ?? '');

  parts.push('## Auto-generated captions');
  parts.push(...renderCaptions(results.captions));

  parts.push('## Live streaming');
  const live = results.live;
  if (live.status === 'ok') parts.push(...renderLive(live.value));
  else parts.push(outcomeNote(live) ?? '');

  parts.push('## Beacon collector (playback analytics)');
  const collector = results.collector;
  if (collector.status === 'ok') parts.push(...renderCollector(collector.value));
  else parts.push(outcomeNote(collector) ?? '');

  parts.push('## Cold playback in a real player');
  const playback = results.coldPlayback;
  const playbackNote = outcomeNote(playback);
  if (playbackNote) parts.push(playbackNote);
  if (playback.status === 'ok') {
    parts.push(
      `hls.js (default settings) in the system Chromium plays ${playback.value.seconds} s of a fresh asset, requested right after it turned ready, ` +
        `from a server with default settings; inputs interleaved (${playback.value.inputs.map((entry) => entry.input).join(', ')}). ` +
        'A stall is a `waiting` event after the first frame or an hls.js BUFFER_STALLED_ERROR.',
    );
    parts.push(
      table(
        ['Input', 'Run', 'Stalls', 'Startup', 'Reached', 'Wall time', 'Levels played (height)', 'Slowest fragment loads'],
        playback.value.runs.map((run) => [
          run.input,
          run.run,
          run.stalls,
          formatMs(run.startupMs),
          `${run.reachedSeconds} s`,
          `${run.wallSeconds} s`,
          run.levelSwitches.map((change) => change.height ?? '?').join(' → '),
          run.slowestLoads.slice(0, 3).map((load) => `${load.url} ${formatMs(load.totalMs)}`).join(', '),
        ]),
      ),
    );
  }

  parts.push('## Under load: simulated viewers and a burst of creates');
  const underLoad = results.underLoad;
  const loadNote = outcomeNote(underLoad);
  if (loadNote) parts.push(loadNote);
  if (underLoad.status === 'ok') parts.push(...renderLoad(underLoad.value));

  if (results.config.scaled.requested) {
    parts.push('## Scaled out: PostgreSQL + Redis + S3 next to the embedded default');
    const scaledNote = outcomeNote(results.scaled);
    if (scaledNote) parts.push(scaledNote);
    if (results.scaled.status === 'ok') parts.push(...renderScaled(results.scaled.value));
  }

  parts.push('## Machine load from other work');
  const percent = (value: number | null) => (value === null ? 'n/a' : `${value} %`);
  parts.push(
    table(
      ['Phase', 'Wall time', 'CPU busy (all cores)', 'of which the benchmark', 'of which other work'],
      results.phaseCpu.map((cpu) => [cpu.phase, formatMs(cpu.wallMs), percent(cpu.machineBusyPercent), percent(cpu.benchmarkPercent), percent(cpu.otherPercent)]),
    ),
  );
  parts.push(
    table(
      ['Idle check', 'CPU busy (all cores, 1 s, benchmark idle)', 'Load avg 1 min'],
      results.load.map((sample) => [sample.label, percent(sample.cpuBusyPercent), sample.loadAverage1m]),
    ),
  );
  parts.push('100 % = both cores busy. "Benchmark" counts this process, the servers it started and their ffmpeg processes.');

  if (results.observations.length > 0) {
    parts.push('## Observations');
    parts.push(results.observations.map((line) => `- ${line}`).join('\n'));
  }
  return `${parts.join('\n\n')}\n`;
};

const spreadCells = (value: Spread) => `${formatMs(value.p50)} / ${formatMs(value.p90)} / ${formatMs(value.p99)} (max ${formatMs(value.max)}, n=${value.count})`;

const encodingLoadCell = (pass: ViewerPassResult): string => {
  const load = pass.encodingLoad;
  if (!load.available) return `not available (${load.reason})`;
  const kinds = Object.entries(load.maxQueuedByKind).map(([kind, count]) => `${kind} ${count}`).join(', ');
  const costs = load.rungCostsAtEnd.map((cost) => `${cost.rung} ${round(cost.secondsPerMediaSecond, 2)} s/s (${cost.samples})`).join(', ');
  return `max queue ${load.maxQueued} (${kinds}), max running ${load.maxRunning} of ${load.encoderLimit}; deadline misses ${load.deadlineMisses}; rung costs at the end: ${costs || 'none'} (${load.samples} samples, every ${load.pollMs} ms)`;
};

const renderLoad = (value: LoadResult): string[] => {
  const { options } = value;
  const pass = (name: string, entry: ViewerPassResult) => [
    name,
    `**${entry.stalls}** (${entry.viewersWithStalls} viewers, ${entry.stalledSeconds} s)`,
    `${formatMs(entry.startupMs.p50)} / ${formatMs(entry.startupMs.p90)}`,
    spreadCells(entry.videoFetchMs),
    spreadCells(entry.videoFetchAfterStartMs),
    spreadCells(entry.audioFetchMs),
    entry.httpErrors,
    Object.entries(entry.rungsPlayed)
      .sort(([a], [b]) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
      .map(([rung, count]) => `${rung}: ${count}`)
      .join(', ') + (entry.steeredSegments > 0 ? ` (${entry.steeredSegments} steered down by a 429)` : ''),
    `${entry.viewersReachedEnd}/${entry.viewers}`,
  ];
  const creates = (name: string, entry: LoadResult['burst']) => [
    name,
    `${entry.ready}/${entry.creates}`,
    entry.errored + entry.createErrors,
    formatMs(entry.createsMs),
    `**${formatMs(entry.firstCreateToLastReadyMs)}** (server ${formatMs(entry.serverFirstCreateToLastReadyMs)})`,
    `${formatMs(entry.perAssetReadyMs.p50)} / ${formatMs(entry.perAssetReadyMs.p90)}`,
  ];
  return [
    `Input: ${value.input}; a server of its own with default settings. **Fresh:** ${options.assets} assets created at once; the moment the last is ready, ` +
      `${options.viewersPerAsset} simulated viewers start on each (${options.assets * options.viewersPerAsset} in all, for up to ${options.wallSeconds} s). A viewer fetches what hls.js would: ` +
      'the multivariant playlist, the first-listed variant\'s playlist and the audio playlist, both init segments, then each video segment with the audio segment(s) it needs, ' +
      'as fast as possible until 10 s are buffered (playback starts: startup), then at real-time pace (the next segment once less than 10 s are ahead, never more than 30 s). ' +
      'ABR: one rung down when a video segment took more than 80 % of its duration, one up when under 30 %. A stall is the playhead reaching the end of the buffer after the start. ' +
      `**Cached:** every segment of every rung fetched once (${formatMs(value.warmup.ms)}, ${value.warmup.requests} requests, ${value.warmup.errors} errors, rungs ${value.warmup.rungs.join(' ')}), then the same viewers again. ` +
      `**Burst:** ${options.burstCreates} creates at once on the then idle server.`,
    table(
      ['Pass', 'Stalls after start', 'Startup p50 / p90', 'Video fetch p50 / p90 / p99', 'Video fetch after start p50 / p90 / p99', 'Audio fetch p50 / p90 / p99', 'HTTP errors', 'Video segments per rung', 'Reached the end'],
      [
        pass('fresh', value.fresh),
        pass('cached', value.cached),
        ...(value.cachedOnNginx ? [pass('cached, nginx serving the same files (peer)', value.cachedOnNginx)] : []),
      ],
    ),
    ...(value.cachedOnNginx
      ? [
          'The peer row runs the same viewers against nginx (`worker_processes auto`, sendfile) serving the bytes Keyframe had served ' +
            '(playlists as rendered, segments as stored) at the same paths, right after the cached pass: what this machine and this client allow.',
        ]
      : ['_No nginx peer for the cached pass (nginx not available)._']),
    `Encoding load (GET /api/encoding-load) — fresh: ${encodingLoadCell(value.fresh)}. Cached: ${encodingLoadCell(value.cached)}.`,
    ...(value.fresh.errorSamples.length + value.cached.errorSamples.length > 0
      ? [`HTTP errors, e.g.: ${[...value.fresh.errorSamples, ...value.cached.errorSamples].join('; ')}`]
      : []),
    table(
      ['Creates', 'Ready', 'Errored', 'All created (201) after', 'First create → last ready', 'Per asset create → ready p50 / p90'],
      [creates(`${value.creates.creates} at once (fresh pass)`, value.creates), creates(`${value.burst.creates} at once (burst)`, value.burst)],
    ),
    ...(value.burst.errorSamples.length > 0 ? [`Burst errors, e.g.: ${value.burst.errorSamples.join('; ')}`] : []),
  ];
};

const renderCaptions = (outcome: PhaseOutcome<CaptionsResult>): string[] => {
  if (outcome.status !== 'ok') return [outcome.status === 'error' ? `**Failed:** ${outcome.error}` : `_Skipped: ${outcome.reason}_`];
  const value = outcome.value;
  const percent = (rate: number | undefined) => (rate === undefined ? null : `${round(rate * 100, 1)} %`);
  return [
    `The server's captions pipeline called directly (no HTTP): the audio decoded to 16 kHz mono WAV by ffmpeg, then ${value.engine}, then the ` +
      `cue builder; medians of ${value.runsPerInput} runs. CPU = user + system seconds of the child processes (other work on the machine does ` +
      'not count); wall = elapsed time, which at nice 19 includes waiting for a busy CPU. The 1 s of silence is the fixed cost of a run ' +
      '(mostly loading the model), included in every other row.',
    table(
      ['Input', 'Audio', 'CPU s', 'CPU s / audio s', 'Wall', 'Wall s / audio s', 'Extract CPU s', 'Recognise CPU s', 'Words', 'WER'],
      value.inputs.map((input) => [
        input.label,
        `${input.audioSeconds} s`,
        input.median.cpuSeconds,
        input.median.cpuSecondsPerAudioSecond,
        formatMs(input.median.wallMs),
        input.median.wallSecondsPerAudioSecond,
        input.median.extractCpuSeconds,
        input.median.recognizeCpuSeconds,
        input.runs[0]?.words,
        percent(input.wer?.rate),
      ]),
    ),
    [
      ...value.inputs.filter((input) => input.wer).map((input) => `- ${input.label} heard: “${input.transcript.replace(/\n/g, ' ').trim()}”`),
      ...value.skipped.map((entry) => `- Skipped ${entry.label}: ${entry.reason}`),
    ].join('\n'),
  ];
};
