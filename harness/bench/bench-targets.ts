import { CAMERA_30_FIRST, CAMERA_30_LAST, CAMERA_300_FIRST, CAMERA_300_LAST, CLEAN_30, COLD_PLAYBACK_SECONDS, LIMITS, LOAD_INPUT, LOAD_LIMITS, PLAYBACK_INPUTS, SHORT_SECONDS } from './bench-config';
import type { BenchOptions } from './bench-options';
import { capacityTargets } from './capacity-report';
import { chaosTargets } from './chaos-report';
import { keyResults, type BenchOutcomes } from './bench-summary';
import { DELIVERY_KINDS } from './delivery';
import { inputLabel } from './inputs';
import { DEFAULT_LIVE_OPTIONS, LIVE_LATENCY_TARGET_SECONDS, livePlayableTargetMs } from './live';
import { liveCaptionsTargets, simulcastTargets, slateTargets, srtIngestTargets } from './live-report';
import type { Target } from './bench-results';
import { formatMs, formatRatio, ratio, round } from '../stats';

// The targets a run is held to: each with its value, limit and whether it passed.

export const benchTargets = (outcomes: BenchOutcomes, options: BenchOptions): Target[] => {
  const { quick, playbackRuns, loadOptions } = options;
  const { doReady, doSegments, doDelivery, doUploads, doPlayback, doLoad, doCollector, doLive, doCapacity, doChaos } = options.parts;
  const { segments, delivery, coldPlayback, underLoad, capacity, live, collector, chaos } = outcomes;
  const { ready, medianOf, ratioOf, cleanRatio, first, upload, comparisons } = keyResults(outcomes);

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

  if (doCapacity) targets.push(...capacityTargets(capacity));
  if (doChaos) targets.push(...chaosTargets(chaos));

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
    const liveCases = options.liveOptions.cases;
    for (const mode of liveCases.includes('latency') ? options.liveOptions.modes : []) {
      const entry = value?.modes.find((candidate) => candidate.mode === mode && candidate.ingest === 'rtmp');
      const srt = value?.modes.find((candidate) => candidate.mode === mode && candidate.ingest === 'srt');
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
        ...srtIngestTargets(mode, entry, srt),
      );
    }
    if (liveCases.includes('simulcast')) targets.push(...simulcastTargets(value?.simulcast));
    if (liveCases.includes('slate')) targets.push(...slateTargets(value?.slate));
    if (liveCases.includes('captions')) targets.push(...liveCaptionsTargets(value?.captions));
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
  return targets;
};

