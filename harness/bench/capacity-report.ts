import { formatMs, round } from '../stats';
import type { PhaseOutcome, Target } from './bench-results';
import { describeCpu, type CapacityResult, type CapacityStep } from './capacity';
import { renderBrowserCheck } from './capacity-browser';
import { outcomeNote, table } from './report-sections';

// The capacity curve's targets (issue 27) and its section of bench/results.md.

/** Up to this share of the physical limit, nobody stalls and everyone starts within 3 s. */
export const CAPACITY_COMFORT_FRACTION = 0.85;
export const CAPACITY_LIMITS = { startupP90Ms: 3_000, overLimitStalledShare: 0.02, overLimitStartupP50Ms: 5_000 };

const makeTarget = (spec: Omit<Target, 'pass'>): Target => ({
  ...spec,
  pass: spec.value === null ? null : spec.atLeast ? spec.value >= spec.limit : spec.value <= spec.limit,
});

const within = (value: CapacityResult) => value.steps.filter((step) => step.fractionOfLimit !== null && step.fractionOfLimit <= CAPACITY_COMFORT_FRACTION);
const beyond = (value: CapacityResult) => value.steps.filter((step) => step.fractionOfLimit !== null && step.fractionOfLimit > 1);

const worst = (steps: CapacityStep[], pick: (step: CapacityStep) => number | null): number | null => {
  const values = steps.map(pick).filter((entry): entry is number => entry !== null);
  return values.length > 0 ? Math.max(...values) : null;
};

export const capacityTargets = (outcome: PhaseOutcome<CapacityResult>): Target[] => {
  const value = outcome.status === 'ok' ? outcome.value : null;
  const comfortable = value ? within(value) : [];
  const over = value ? beyond(value) : [];
  const segmentMs = (comfortable[0]?.pass.segmentSeconds ?? 4) * 1000;
  const listed = (steps: CapacityStep[]) => (steps.length > 0 ? `N = ${steps.map((step) => step.assets).join(', ')}` : 'no N measured there');
  return [
    makeTarget({
      id: 'capacity_within_limit_stalls',
      description: `Fresh assets up to ${CAPACITY_COMFORT_FRACTION} × the physical limit: stalls after start (${listed(comfortable)})`,
      value: comfortable.length > 0 ? comfortable.reduce((sum, step) => sum + step.pass.stalls, 0) : null,
      limit: 0,
      unit: 'count',
    }),
    makeTarget({
      id: 'capacity_within_limit_startup_p90',
      description: `Fresh assets up to ${CAPACITY_COMFORT_FRACTION} × the physical limit: startup p90, the worst N`,
      value: worst(comfortable, (step) => step.pass.startupMs.p90),
      limit: CAPACITY_LIMITS.startupP90Ms,
      unit: 'ms',
    }),
    makeTarget({
      id: 'capacity_within_limit_fetch_p99',
      description: `Fresh assets up to ${CAPACITY_COMFORT_FRACTION} × the physical limit: video segment fetch p99, the worst N (limit: the segment duration)`,
      value: worst(comfortable, (step) => step.pass.videoFetchMs.p99),
      limit: segmentMs,
      unit: 'ms',
    }),
    makeTarget({
      id: 'capacity_over_limit_stalled_share',
      description: `Fresh assets over the physical limit (${listed(over)}): the worst started viewer's stalled share of its watch time`,
      value: worst(over, (step) => step.worstStalledShare),
      limit: CAPACITY_LIMITS.overLimitStalledShare,
      unit: 'ratio',
    }),
    makeTarget({
      id: 'capacity_over_limit_startup_p50',
      description: 'Fresh assets over the physical limit: startup p50, the worst N',
      value: worst(over, (step) => step.pass.startupMs.p50),
      limit: CAPACITY_LIMITS.overLimitStartupP50Ms,
      unit: 'ms',
      note: over.length > 0 ? `startup p90: ${over.map((step) => `N=${step.assets} ${formatMs(step.pass.startupMs.p90)}`).join(', ')}` : undefined,
    }),
  ];
};

const rungsPlayed = (played: Record<string, number>): string => {
  const total = Object.values(played).reduce((sum, count) => sum + count, 0);
  return Object.entries(played)
    .sort(([a], [b]) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
    .map(([rung, count]) => `${rung} ${Math.round((count / Math.max(1, total)) * 100)} %`)
    .join(', ');
};

export const renderCapacity = (outcome: PhaseOutcome<CapacityResult>): string[] => {
  const note = outcomeNote(outcome);
  if (outcome.status !== 'ok') return [note ?? ''];
  const { costs, steps, control, options, input } = outcome.value;
  const parts: string[] = [];
  parts.push(
    `Input: ${input}. Per N, a server of its own; N assets created at once, then ${options.viewersPerAsset} simulated viewers on each the ` +
      `moment all are ready, for ${options.wallSeconds} s (hls.js's fetch order and ABR: a 429 refetched from the next lower variant, down a ` +
      `rung above 80 % of a segment's duration, up below 30 %; playback starts on the first segment).`,
  );
  parts.push(
    `**Physical limit, measured in this run** (CPU seconds of ffmpeg alone on the idle machine, ${costs.runs} runs, median): decoding the ` +
      `source costs ${costs.decodeCpuPerMediaSecond} CPU-s per second of media, and decoding it while encoding the cheapest rung (${costs.cheapestRung}) ` +
      `in one continuous run ${costs.continuousCheapestCpuPerMediaSecond}; ${costs.cores} cores therefore keep at most **${costs.limitAssets} fresh assets** ` +
      `in real time. With one run per segment, as just-in-time encoding makes them, the cheapest rung costs ` +
      `${costs.rungs[0]?.segmentCpuPerMediaSecond ?? 'n/a'} (a process, a seek and an encoder start per segment), which would allow ` +
      `${costs.limitAssetsPerSegmentRuns}. Fractions of the limit below are of the continuous one.`,
  );
  const { boxLimit } = outcome.value;
  if (boxLimit) {
    parts.push(
      `**With serving counted**: the server's own CPU and the simulated viewers' (they run on the same machine) took ` +
        `${boxLimit.servingCpuPerAsset} cores per fresh asset (median over the steps), so this box keeps at most **${boxLimit.limitAssets} fresh assets** ` +
        `with their viewers. Where the cores went in each step is in the last column (encoders = the server's ffmpeg children).`,
    );
  }
  parts.push(
    table(
      ['Rung', 'Segment encode CPU-s / media s (decode included)', 'Encode alone', 'Wall s / media s (alone)', 'Fresh assets in real time'],
      costs.rungs.map((rung) => [rung.rung, rung.segmentCpuPerMediaSecond, rung.encodeCpuPerMediaSecond, rung.wallPerMediaSecond, rung.assetsInRealTime]),
    ),
  );
  if (costs.joint.length > 0) {
    parts.push('**Decode once, encode every rung wanted**: one ffmpeg run for several rungs of a segment, against each rung in a run of its own (CPU seconds per second of media, median).');
    parts.push(
      table(
        ['Rungs', 'One run', 'Runs of their own', 'CPU saved', 'Wall s / media s (one run, alone)'],
        costs.joint.map((entry) => [entry.rungs.join(' + '), entry.jointCpuPerMediaSecond, entry.separateCpuPerMediaSecond, `${round(entry.saved * 100, 1)} %`, entry.jointWallPerMediaSecond]),
      ),
    );
  }
  const row = (label: string, step: Pick<CapacityStep, 'pass'> & Partial<CapacityStep>) => {
    const { pass } = step;
    const load = pass.encodingLoad.available ? pass.encodingLoad : null;
    return [
      label,
      step.fractionOfLimit ?? 'n/a',
      `${formatMs(pass.startupMs.p50)} / ${formatMs(pass.startupMs.p90)} (${pass.viewersStarted}/${pass.viewers})`,
      `${pass.stalls} (${pass.stalledSeconds} s${step.worstStalledShare !== undefined ? `, worst ${round(step.worstStalledShare * 100, 1)} %` : ''})`,
      `${formatMs(pass.videoFetchMs.p50)} / ${formatMs(pass.videoFetchMs.p99)}`,
      rungsPlayed(pass.rungsPlayed),
      pass.steeredSegments,
      load ? `${load.maxQueued} / ${load.deadlineMisses}` : 'n/a',
      describeCpu(step.cpu ?? null),
    ];
  };
  parts.push(
    table(
      ['Fresh assets (viewers)', '÷ limit', 'Startup p50 / p90 (started)', 'Stalls after start (time, worst viewer)', 'Video fetch p50 / p99', 'Rungs played', '429s', 'Encoder queue max / deadline misses', 'Cores used'],
      [
        ...steps.map((step) => row(`${step.assets} (${step.viewers})`, step)),
        ...(control ? [row(`${control.assets} (${control.pass.viewers}), cached ladders`, { pass: control.pass, cpu: control.cpu })] : []),
      ],
    ),
  );
  if (control) parts.push(`Control: the largest N's ladders were cached first (${formatMs(control.warmupMs)}).`);
  const check = outcome.value.browserCheck;
  if (check) {
    parts.push(`**The simulated viewer against hls.js** (N = ${check.assets}, ${check.playersPerAsset} per asset, each on fresh assets of a server of its own):`);
    parts.push(...renderBrowserCheck(check.browser));
    parts.push(
      table(
        ['Simulated viewers', 'Startup p50 / p90 (started)', 'Stalls after start (time)', 'Video fetch p50 / p99', 'Rungs played', '429s'],
        [
          [
            check.simulated.viewers,
            `${formatMs(check.simulated.startupMs.p50)} / ${formatMs(check.simulated.startupMs.p90)} (${check.simulated.viewersStarted}/${check.simulated.viewers})`,
            `${check.simulated.stalls} (${check.simulated.stalledSeconds} s)`,
            `${formatMs(check.simulated.videoFetchMs.p50)} / ${formatMs(check.simulated.videoFetchMs.p99)}`,
            rungsPlayed(check.simulated.rungsPlayed),
            check.simulated.steeredSegments,
          ],
        ],
      ),
    );
  }
  return parts;
};
