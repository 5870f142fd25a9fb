import { CLEAN_300 } from './bench-config';
import { inputLabel, type InputSpec } from './inputs';
import type { BenchResults } from './bench-results';
import { ratio, round } from '../stats';

// The summary of a run: the headline numbers of every phase, read from their outcomes.

export type BenchOutcomes = Pick<BenchResults, 'idleMemory' | 'timeToReady' | 'segments' | 'delivery' | 'baseline' | 'uploadThroughput' | 'coldPlayback' | 'staticRenditions' | 'underLoad' | 'capacity' | 'scaled' | 'captions' | 'live' | 'collector' | 'chaos'>;

/** What the summary, the targets and the observations read first of the outcomes. */
export const keyResults = (outcomes: BenchOutcomes) => {
  const { timeToReady, segments, delivery, baseline, uploadThroughput } = outcomes;
  const ready = timeToReady.status === 'ok' ? timeToReady.value : null;
  const medianOf = (spec: InputSpec) => ready?.medians[inputLabel(spec)];
  const ratioOf = (group: string) => ready?.ratios.find((entry) => entry.group === group);
  const cleanRatio = ratioOf('clean');
  const first = segments.status === 'ok' ? segments.value.firstListed : null;
  const baselineMs = baseline.status === 'ok' ? baseline.value.wallMs : null;
  const upload = uploadThroughput.status === 'ok' ? uploadThroughput.value : null;
  const comparisons = delivery.status === 'ok' ? delivery.value.comparisons : [];
  const longClean = medianOf(CLEAN_300);
  return { ready, medianOf, ratioOf, cleanRatio, first, baselineMs, upload, comparisons, longClean };
};

export const summariseResults = (outcomes: BenchOutcomes): BenchResults['summary'] => {
  const { idleMemory, segments, coldPlayback, underLoad, captions, live, collector } = outcomes;
  const { ready, first, baselineMs, upload, comparisons, longClean } = keyResults(outcomes);
  return {
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
            slateStalls: Object.fromEntries(
              (live.value.slate.status === 'ok' ? live.value.slate.value.cases : []).map((entry) => [
                entry.label,
                { stalls: entry.measured?.playback.stalls ?? null, stalledSeconds: entry.measured?.stalledSeconds ?? null },
              ]),
            ),
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
};
