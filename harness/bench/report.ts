import type { BenchResults, Target } from './bench-results';
import { renderCollector } from './collector-report';
import { renderLive } from './live-report';
import { outcomeNote, renderCaptions, renderColdPlayback, renderDelivery, renderLoad, renderStaticRenditions, renderUploads, table } from './report-sections';
import { renderScaled } from './scaled-report';
import { renderCapacity } from './capacity-report';
import { renderChaos } from './chaos-report';
import { formatMs, formatRatio, round } from '../stats';

// The markdown rendering (bench/results.md) of the results document (bench-results.ts,
// bench/results.json); the longer sections are in report-sections.ts.

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
  parts.push(...renderDelivery(results));

  parts.push(...renderUploads(results));

  parts.push(...renderStaticRenditions(results));

  parts.push('## Auto-generated captions');
  parts.push(...renderCaptions(results.captions));

  parts.push('## Live streaming');
  const live = results.live;
  if (live.status === 'ok') parts.push(...renderLive(live.value));
  else parts.push(outcomeNote(live) ?? '');

  parts.push('## Faults on the cluster (chaos soak)');
  parts.push(...renderChaos(results.chaos));

  parts.push('## Beacon collector (playback analytics)');
  const collector = results.collector;
  if (collector.status === 'ok') parts.push(...renderCollector(collector.value));
  else parts.push(outcomeNote(collector) ?? '');
  parts.push(...renderColdPlayback(results));

  parts.push('## Under load: simulated viewers and a burst of creates');
  const underLoad = results.underLoad;
  const loadNote = outcomeNote(underLoad);
  if (loadNote) parts.push(loadNote);
  if (underLoad.status === 'ok') parts.push(...renderLoad(underLoad.value));

  parts.push('## Fresh-asset capacity: the curve up to and past the physical limit');
  parts.push(...renderCapacity(results.capacity));

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
