import type { BaselineResult } from './baseline';
import type { ColdPlaybackResult } from './cold-playback';
import type { BenchInput } from './inputs';
import type { LoadSnapshot, MachineInfo, PhaseCpu } from './machine';
import type { SegmentsResult } from './segments';
import { formatMs, formatRatio, round } from './stats';
import type { ThroughputResult } from './throughput';
import type { TimeToReadyResult } from './time-to-ready';
import type { UploadThroughputResult } from './upload-throughput';

// The results document (bench/results.json) and its markdown rendering (bench/results.md).

export type PhaseOutcome<T> = { status: 'ok'; value: T } | { status: 'error'; error: string } | { status: 'skipped'; reason: string };

export type Target = {
  id: string;
  description: string;
  value: number | null;
  limit: number;
  unit: 'ms' | 'ratio' | 'MB' | 'count';
  pass: boolean | null;
  note?: string;
};

export type BenchResults = {
  schema: 'keyframe-bench/1';
  mode: 'full' | 'quick' | 'upload-throughput' | 'time-to-ready' | 'cold-playback';
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
    throughput: { requests: number; concurrency: number };
    uploadThroughput: { runsPerMethod: number };
    coldPlayback: { runs: number; seconds: number };
    dbPollMs: number;
  };
  inputs: BenchInput[];
  timeToReady: PhaseOutcome<TimeToReadyResult>;
  segments: PhaseOutcome<SegmentsResult>;
  throughput: PhaseOutcome<ThroughputResult>;
  /** The same file, same client, from a plain node:http + fs.createReadStream server: the floor. */
  throughputReference: PhaseOutcome<ThroughputResult>;
  baseline: PhaseOutcome<BaselineResult>;
  /** Direct uploads of a ~1.09 GB file on a server of its own: MB/s and the server's memory. */
  uploadThroughput: PhaseOutcome<UploadThroughputResult>;
  /** hls.js in Chromium plays the first minute of a fresh asset on a default server. */
  coldPlayback: PhaseOutcome<ColdPlaybackResult>;
  summary: {
    timeToReadyMs: Record<string, { serverSide: number | null; clientObserved: number | null }>;
    ratio300To30: { serverSide: number | null; clientObserved: number | null } | null;
    firstListedVariant: string | null;
    firstListedColdSegment0Ms: number | null;
    firstListedColdSegment0DirectMs: number | null;
    firstListedInitPlusColdMs: number | null;
    firstListedStartupMs: number | null;
    baselineMs: number | null;
    ratioTimeToReady300ToBaseline: number | null;
    warmSegmentRequestsPerSecond: number | null;
    uploadSinglePutMegabytesPerSecond: number | null;
    uploadChunkedMegabytesPerSecond: number | null;
    uploadServerPeakRssMB: number | null;
    coldPlaybackMaxStalls: number | null;
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
const targetLimit = (target: Target) => `≤ ${formatTargetNumber(target, target.limit)}`;

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

  parts.push('## Time to ready');
  const ttr = results.timeToReady;
  if (ttr.status === 'ok') {
    const labels = Object.keys(ttr.value.medians);
    parts.push(
      table(
        ['Input', 'Runs: server (readyAt − createdAt)', 'Median server', 'Runs: client (POST → ready seen)', 'Median client'],
        labels.map((label) => {
          const samples = ttr.value.samples.filter((sample) => sample.input === label);
          return [
            label,
            samples.map((sample) => formatMs(sample.serverMs)).join(', '),
            formatMs(ttr.value.medians[label]?.serverMs),
            samples.map((sample) => formatMs(sample.clientMs)).join(', '),
            formatMs(ttr.value.medians[label]?.clientMs),
          ];
        }),
      ),
    );
    if (ttr.value.ratioLongToShort) {
      parts.push(
        `Ratio median(300 s) / median(30 s): **${formatRatio(ttr.value.ratioLongToShort.serverSide)}** server-side, ` +
          `${formatRatio(ttr.value.ratioLongToShort.clientObserved)} client-observed. ` +
          `Runs interleaved; one uncounted 30 s warm-up first (${formatMs(ttr.value.warmup?.serverMs)}).`,
      );
    }
  } else parts.push(outcomeNote(ttr) ?? '');

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

  parts.push('## Warm segment throughput');
  const throughput = results.throughput;
  if (throughput.status === 'ok') {
    const rows = [{ label: 'Keyframe (segment route)', outcome: throughput }, { label: 'reference: plain node:http, same file', outcome: results.throughputReference }];
    parts.push(
      table(
        ['Server', 'Requests', 'Concurrency', 'OK', 'req/s', 'p50', 'p90', 'p99', 'max', 'MB/s', 'Bytes each', 'Connections'],
        rows.map(({ label, outcome }) =>
          outcome.status === 'ok'
            ? [
                label,
                outcome.value.requests,
                outcome.value.concurrency,
                outcome.value.ok,
                outcome.value.requestsPerSecond,
                formatMs(outcome.value.latencyMs.p50),
                formatMs(outcome.value.latencyMs.p90),
                formatMs(outcome.value.latencyMs.p99),
                formatMs(outcome.value.latencyMs.max),
                outcome.value.megabytesPerSecond,
                outcome.value.bytesPerResponse,
                outcome.value.socketsUsed,
              ]
            : [label, outcome.status === 'error' ? `failed: ${outcome.error}` : `skipped: ${outcome.reason}`],
        ),
      ),
    );
    parts.push(
      `Segment: \`${throughput.value.url.replace(/^https?:\/\/[^/]+/, '')}\`, node:http keep-alive agent. The load generator runs on the same two cores as the server.`,
    );
  } else parts.push(outcomeNote(throughput) ?? '');

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

  parts.push('## Cold playback in a real player');
  const playback = results.coldPlayback;
  const playbackNote = outcomeNote(playback);
  if (playbackNote) parts.push(playbackNote);
  if (playback.status === 'ok') {
    parts.push(
      `hls.js (default settings) in the system Chromium plays ${playback.value.seconds} s of a fresh asset made from the 300 s input, ` +
        'requested right after it turned ready, from a server with default settings. A stall is a `waiting` event after the first frame or an hls.js BUFFER_STALLED_ERROR.',
    );
    parts.push(
      table(
        ['Run', 'Stalls', 'Startup', 'Reached', 'Wall time', 'Levels played (height)', 'Slowest fragment loads'],
        playback.value.runs.map((run, index) => [
          index + 1,
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
