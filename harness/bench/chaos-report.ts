import type { ChaosResult } from '../chaos/run-chaos';
import { formatMs } from '../stats';
import type { PhaseOutcome, Target } from './bench-results';
import { outcomeNote, table } from './report-sections';

// The chaos soak in the report: the faults by kind with their recovery, what clients saw during
// the faults, and the invariants as figures; its targets are the guarantees (zero lost, stuck,
// corrupted, 500s, hangs) and recovery within a minute.

export const CHAOS_RECOVERY_LIMIT_MS = 60_000;

const seconds = (ms: number | null | undefined) => (ms === null || ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);

export const chaosTargets = (outcome: PhaseOutcome<ChaosResult>): Target[] => {
  const value = outcome.status === 'ok' ? outcome.value : null;
  const invariants = value?.invariants;
  const worstRecovery = value ? Math.max(0, ...value.byKind.map((kind) => kind.recoveryMs.max ?? (kind.unrecovered > 0 ? Infinity : 0))) : null;
  const target = (spec: Omit<Target, 'pass'>): Target => ({ ...spec, pass: spec.value === null ? null : spec.value <= spec.limit });
  return [
    target({
      id: 'chaos_lost',
      description: 'Chaos: inputs and uploads a client was told succeeded that ended errored, without an asset or with different bytes',
      value: invariants
        ? invariants.creates.errored.length + invariants.uploads.failed.length + invariants.uploads.withoutAsset.length + invariants.uploads.assetErrored.length +
          invariants.uploads.sourceMismatched.length + invariants.uploads.sourceMissing.length
        : null,
      limit: 0,
      unit: 'count',
    }),
    target({ id: 'chaos_stuck', description: 'Chaos: assets still preparing after the settle time', value: invariants ? invariants.creates.stuck.length + invariants.uploads.assetStuck.length : null, limit: 0, unit: 'count' }),
    target({
      id: 'chaos_corrupted',
      description: 'Chaos: segments served with two versions, differing per node or in the bucket, or partial objects',
      value: invariants
        ? invariants.segments.conflicts.length + invariants.segments.nodes.mismatched.length + invariants.segments.bucket.segmentMismatches.length +
          invariants.segments.bucket.emptyObjects.length + invariants.segments.bucket.temporaryObjects.length
        : null,
      limit: 0,
      unit: 'count',
    }),
    target({ id: 'chaos_webhooks_missing', description: 'Chaos: expected webhook events never delivered', value: invariants?.webhooks.missing.length ?? null, limit: 0, unit: 'count' }),
    target({ id: 'chaos_500s', description: 'Chaos: requests answered 500 (a dependency down must answer 503 + Retry-After)', value: invariants?.requests.status500 ?? null, limit: 0, unit: 'count' }),
    target({ id: 'chaos_hangs', description: 'Chaos: requests that took 30 s or more', value: invariants?.requests.hangs ?? null, limit: 0, unit: 'count' }),
    target({
      id: 'chaos_recovery',
      description: 'Chaos: slowest recovery, fault end → every node healthy (any kind)',
      value: worstRecovery === null || !Number.isFinite(worstRecovery) ? (worstRecovery === null ? null : CHAOS_RECOVERY_LIMIT_MS * 10) : worstRecovery,
      limit: CHAOS_RECOVERY_LIMIT_MS,
      unit: 'ms',
    }),
  ];
};

export const renderChaos = (outcome: PhaseOutcome<ChaosResult>): string[] => {
  const note = outcomeNote(outcome);
  if (outcome.status !== 'ok') return [note ?? ''];
  const result = outcome.value;
  const { invariants, requests, options } = result;
  const parts: string[] = [];
  parts.push(
    `${result.topology}. ${options.durationSeconds} s of mixed load (creates from a URL, chunked direct uploads retried as UpChunk retries, ` +
      `simulated viewers, API reads, a webhook endpoint, one RTMP broadcast), the first fault after ${options.warmupSeconds} s, then one after another ` +
      `(${options.timing.downMs / 1000} s down for kills and restarts, ${options.timing.outageMs / 1000} s for stalls, outages, a full disk and a freeze; ` +
      `${Math.round(options.overlapShare * 100)} % started while the previous one was on; seed ${options.seed}). Recovery: from the fault's end until every ` +
      `node's /api/health answers 200.`,
  );
  if (result.skippedKinds.length > 0) parts.push(`Left out: ${result.skippedKinds.map((skipped) => `${skipped.kind} (${skipped.reason})`).join('; ')}.`);
  parts.push(
    table(
      ['Fault', 'Injected', 'Recovery median', 'Recovery max', 'Not recovered in 120 s', 'Requests during', '5xx during', 'Hangs during', 'p50 / p99 during'],
      result.byKind.map((kind) => {
        const windows = requests.byFault.filter((window) => window.kind === kind.kind);
        const sum = (pick: (window: (typeof windows)[number]) => number) => windows.reduce((total, window) => total + pick(window), 0);
        const p50 = Math.max(...windows.map((window) => window.p50Ms ?? 0));
        const p99 = Math.max(...windows.map((window) => window.p99Ms ?? 0));
        return [
          kind.kind,
          kind.failedToInject ? `${kind.injected} (+${kind.failedToInject} failed)` : kind.injected,
          seconds(kind.recoveryMs.median),
          seconds(kind.recoveryMs.max),
          kind.unrecovered,
          sum((window) => window.requests),
          sum((window) => window.serverErrors),
          sum((window) => window.hangs),
          windows.length ? `${formatMs(p50)} / ${formatMs(p99)} (worst window)` : 'n/a',
        ];
      }),
    ),
  );
  parts.push(
    table(
      ['Requests', 'Count', 'p50', 'p99', 'Max'],
      [
        ['during a fault (injection → recovery)', requests.duringFaults.count, formatMs(requests.duringFaults.p50Ms), formatMs(requests.duringFaults.p99Ms), formatMs(requests.duringFaults.maxMs)],
        ['outside faults', requests.outsideFaults.count, formatMs(requests.outsideFaults.p50Ms), formatMs(requests.outsideFaults.p99Ms), formatMs(requests.outsideFaults.maxMs)],
      ],
    ),
  );
  const { creates, uploads, segments, webhooks, broadcast } = invariants;
  const figures = invariants.requests;
  parts.push(
    table(
      ['Invariant', 'Figure'],
      [
        ['Creates from a URL (201) → ready / errored / stuck', `${creates.accepted} → ${creates.ready} / ${creates.errored.length} / ${creates.stuck.length}`],
        ['Direct uploads succeeded for the client → failed under UpChunk rules', `${uploads.succeeded} → ${uploads.failed.length}`],
        ['Uploaded sources byte-identical / differing / missing', `${uploads.sourceIdentical} / ${uploads.sourceMismatched.length} / ${uploads.sourceMissing.length}`],
        ['Segment paths served / with two versions', `${segments.distinctPaths} / ${segments.conflicts.length}`],
        ['Re-fetched from each app node: matched / differing / failed', `${segments.nodes.matched} / ${segments.nodes.mismatched.length} / ${segments.nodes.failed.length}`],
        ['Bucket objects checked: empty / temporary / differing segments', `${segments.bucket.objects}: ${segments.bucket.emptyObjects.length} / ${segments.bucket.temporaryObjects.length} / ${segments.bucket.segmentMismatches.length}`],
        ['Webhook events missing / duplicated', `${webhooks.missing.length} / ${webhooks.duplicates} (of ${webhooks.deliveries} deliveries)`],
        [
          'Broadcast: published / recorded (reconnects)',
          broadcast ? `${broadcast.publishedSeconds.toFixed(0)} s / ${broadcast.recordedSeconds.toFixed(0)} s in ${broadcast.recordings.length} recording(s) (${broadcast.reconnects})` : 'n/a',
        ],
        ['Requests: 500 / 503 with Retry-After / 503 without', `${figures.status500} / ${figures.status503WithRetryAfter} / ${figures.status503WithoutRetryAfter}`],
        ['Requests: other 5xx (balancer) / no answer / hangs ≥ 30 s', `${JSON.stringify(figures.otherServerErrors)} / ${figures.networkErrors} / ${figures.hangs}`],
      ],
    ),
  );
  parts.push(result.violations.length === 0 ? '**Every invariant held.**' : `**Broken:**\n\n${result.violations.map((violation) => `- ${violation}`).join('\n')}`);
  // Not an invariant (see invariantViolations) but a user's file all the same, so the target counts it.
  if (uploads.failed.length > 0) {
    parts.push(`**Uploads given up by the client** (UpChunk's 5 tries 1 s apart): ${uploads.failed.map((upload) => `${upload.uploadId} (${upload.failure})`).join('; ')}`);
  }
  return parts;
};
