import type { BenchInput } from './inputs';
import type { LoadSnapshot, MachineInfo, PhaseCpu } from './machine';
import { keyResults, type BenchOutcomes } from './bench-summary';

// What a reader of the results should know besides the numbers: a busy machine, a stale build,
// inputs that are not what they should be, measurements that measured something else.

export const benchObservations = ({
  outcomes,
  phaseCpu,
  machine,
  load,
  staleSources,
  buildId,
  inputs,
}: {
  outcomes: BenchOutcomes;
  phaseCpu: PhaseCpu[];
  machine: MachineInfo;
  load: LoadSnapshot[];
  staleSources: string[];
  buildId: string | null;
  inputs: BenchInput[];
}): string[] => {
  const { segments, delivery, baseline } = outcomes;
  const { ready, first } = keyResults(outcomes);
  const observations: string[] = [];
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
  return observations;
};
