import { formatLatency, formatMs, formatRatio, round } from '../stats';
import type { BenchResults, PhaseOutcome } from './bench-results';
import type { CaptionsResult } from './captions';
import type { DeliveryServerName } from './delivery';
import type { LoadResult, Spread, ViewerPassResult } from './load';

// The sections of bench/results.md that report.ts leaves to this file: cached delivery, direct
// uploads, MP4 static renditions, cold playback, the load phase and the captions; and the table
// helpers every section uses.

export const cell = (value: string | number | null | undefined) => (value === null || value === undefined ? 'n/a' : String(value));

export const table = (header: string[], rows: Array<Array<string | number | null | undefined>>): string =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join(
    '\n',
  );

export const outcomeNote = (outcome: PhaseOutcome<unknown>): string | null =>
  outcome.status === 'error' ? `**Failed:** ${outcome.error}` : outcome.status === 'skipped' ? `_Skipped: ${outcome.reason}_` : null;

/** Cached delivery: Keyframe next to nginx (and plain node). */
export const renderDelivery = (results: BenchResults): string[] => {
  const parts: string[] = [];
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
  return parts;
};

/** Direct upload throughput and the server's memory meanwhile. */
export const renderUploads = (results: BenchResults): string[] => {
  const parts: string[] = [];
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
  return parts;
};

/** MP4 static renditions: cold and cached builds, and plain ffmpeg beside them. */
export const renderStaticRenditions = (results: BenchResults): string[] => {
  const parts: string[] = [];
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
  return parts;
};

/** Cold playback in hls.js/Chromium. */
export const renderColdPlayback = (results: BenchResults): string[] => {
  const parts: string[] = [];
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
  return parts;
};

const spreadCells = (value: Spread) => `${formatMs(value.p50)} / ${formatMs(value.p90)} / ${formatMs(value.p99)} (max ${formatMs(value.max)}, n=${value.count})`;

const encodingLoadCell = (pass: ViewerPassResult): string => {
  const load = pass.encodingLoad;
  if (!load.available) return `not available (${load.reason})`;
  const kinds = Object.entries(load.maxQueuedByKind).map(([kind, count]) => `${kind} ${count}`).join(', ');
  const costs = load.rungCostsAtEnd.map((cost) => `${cost.rung} ${round(cost.secondsPerMediaSecond, 2)} s/s (${cost.samples})`).join(', ');
  return `max queue ${load.maxQueued} (${kinds}), max running ${load.maxRunning} of ${load.encoderLimit}; deadline misses ${load.deadlineMisses}; rung costs at the end: ${costs || 'none'} (${load.samples} samples, every ${load.pollMs} ms)`;
};

export const renderLoad = (value: LoadResult): string[] => {
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

export const renderCaptions = (outcome: PhaseOutcome<CaptionsResult>): string[] => {
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

