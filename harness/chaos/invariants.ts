import { basicAuth } from '../http';
import { sleep } from '../stats';
import {
  duplicateDeliveries,
  firstSeenHashes,
  missingWebhooks,
  RECORDING_SLACK_SECONDS,
  segmentHashConflicts,
  type ChaosInvariants,
  type ErroredAsset,
} from './invariant-report';
import { getUnrecorded, mapLimit, readObjectSafely, sha256 } from './check-io';
import { summariseRequests } from './request-figures';
import { checkBucket, checkNodes } from './segment-checks';
import type { ChaosTarget } from './target';
import type { WorkloadRecord } from './workload-record';

// The end-of-run checks, once the faults are over: every asset a client was promised settles, and
// what the deployment holds and serves is what the clients sent and were served. Reads go to the
// balancer (or each node, for segments) and the bucket behind the fault proxy; none of them is
// recorded as workload. The verdict is invariantViolations(), from invariant-report.ts.

export { invariantViolations, segmentHashConflicts, type ChaosInvariants } from './invariant-report';
export { requestsDuring, type FaultWindow, type WindowFigures } from './request-figures';
export type { WorkloadRecord } from './workload-record';

const DEFAULT_SETTLE_MS = 180_000;
const SETTLE_POLL_MS = 3_000;
// A delivery repeated right after the first would arrive within this.
const DUPLICATE_GRACE_MS = 5_000;
// The bucket copy of an uploaded source is made after the asset is ready.
const SOURCE_WAIT_MS = 60_000;

type AssetObject = { status?: string; duration?: number; errors?: { type?: string; messages?: string[] } };
type AssetState = { status: string | null; durationSeconds: number | null; messages: string[]; unreadable: boolean };

const TERMINAL = new Set(['ready', 'errored']);

export const checkInvariants = async ({
  target,
  record,
  settleTimeoutMs = DEFAULT_SETTLE_MS,
}: {
  target: ChaosTarget;
  record: WorkloadRecord;
  settleTimeoutMs?: number;
}): Promise<ChaosInvariants> => {
  const authorization = basicAuth(target.token.id, target.token.secret);
  const apiData = async <T>(path: string): Promise<{ status: number; data: T | undefined }> => {
    const { status, body } = await getUnrecorded(`${target.baseUrl}${path}`, authorization);
    try {
      return { status, data: status === 200 ? (JSON.parse(body.toString('utf8')) as { data?: T }).data : undefined };
    } catch {
      return { status, data: undefined };
    }
  };

  // --- settle: every asset leaves `preparing`, every successful upload names its asset ---
  const states = new Map<string, AssetState>();
  const uploadAssets = new Map(record.uploads.filter((upload) => upload.outcome === 'succeeded').map((upload) => [upload.uploadId, upload.assetId]));
  let recordingIds = [...(record.broadcast?.recordingAssetIds ?? [])];
  const allAssetIds = () => [
    ...record.creates.map((created) => created.assetId),
    ...[...uploadAssets.values()].flatMap((assetId) => (assetId ? [assetId] : [])),
    ...recordingIds,
  ];
  const webhookSubjects = () => allAssetIds().map((assetId) => ({ assetId, status: states.get(assetId)?.status ?? null }));
  const refresh = async () => {
    await mapLimit([...uploadAssets.entries()].filter(([, assetId]) => assetId === null), 4, async ([uploadId]) => {
      const assetId = (await apiData<{ asset_id?: string }>(`/video/v1/uploads/${uploadId}`)).data?.asset_id;
      if (assetId) uploadAssets.set(uploadId, assetId);
    });
    if (record.broadcast && (recordingIds.length === 0 || recordingIds.some((assetId) => !TERMINAL.has(states.get(assetId)?.status ?? '')))) {
      const stream = (await apiData<{ recent_asset_ids?: string[] }>(`/video/v1/live-streams/${record.broadcast.liveStreamId}`)).data;
      if (stream?.recent_asset_ids) recordingIds = stream.recent_asset_ids;
    }
    const unsettled = allAssetIds().filter((assetId) => !TERMINAL.has(states.get(assetId)?.status ?? ''));
    await mapLimit(unsettled, 4, async (assetId) => {
      const { status, data } = await apiData<AssetObject>(`/video/v1/assets/${assetId}`);
      const previous = states.get(assetId);
      states.set(assetId, {
        status: data?.status ?? previous?.status ?? null,
        durationSeconds: typeof data?.duration === 'number' ? data.duration : (previous?.durationSeconds ?? null),
        messages: data?.errors?.messages ?? previous?.messages ?? [],
        unreadable: status !== 200,
      });
    });
  };
  const settled = () =>
    allAssetIds().every((assetId) => TERMINAL.has(states.get(assetId)?.status ?? '')) &&
    [...uploadAssets.values()].every((assetId) => assetId !== null) &&
    missingWebhooks(webhookSubjects(), record.webhooks.deliveries).length === 0;
  const settleStartedAt = Date.now();
  for (;;) {
    await refresh();
    if (settled() || Date.now() - settleStartedAt >= settleTimeoutMs) break;
    await sleep(SETTLE_POLL_MS);
  }
  const waitedMs = Date.now() - settleStartedAt;
  await sleep(DUPLICATE_GRACE_MS);

  const statusOf = (assetId: string) => states.get(assetId)?.status ?? null;
  const erroredOf = (assetIds: string[]): ErroredAsset[] =>
    assetIds.filter((assetId) => statusOf(assetId) === 'errored').map((assetId) => ({ assetId, messages: states.get(assetId)?.messages ?? [] }));
  const stuckOf = (assetIds: string[]) => assetIds.filter((assetId) => !TERMINAL.has(statusOf(assetId) ?? '') && !states.get(assetId)?.unreadable);
  const createdIds = record.creates.map((created) => created.assetId);

  // --- uploads: the bytes a client was told were received are the asset's source ---
  const succeeded = record.uploads.filter((upload) => upload.outcome === 'succeeded');
  const uploadedAssetIds = succeeded.flatMap((upload) => {
    const assetId = uploadAssets.get(upload.uploadId);
    return assetId && !states.get(assetId)?.unreadable ? [assetId] : [];
  });
  const sourceResults = new Map<string, 'identical' | 'mismatched' | 'missing'>();
  const sourcePending = succeeded.flatMap((upload) => {
    const assetId = uploadAssets.get(upload.uploadId);
    return assetId && statusOf(assetId) === 'ready' ? [{ assetId, sha256: upload.sha256 }] : [];
  });
  const sourceDeadline = Date.now() + SOURCE_WAIT_MS;
  while (sourcePending.length > 0) {
    for (const pending of [...sourcePending]) {
      const stored = await readObjectSafely(target, `assets/${pending.assetId}/source`);
      if (!stored) continue;
      sourceResults.set(pending.assetId, sha256(stored) === pending.sha256 ? 'identical' : 'mismatched');
      sourcePending.splice(sourcePending.indexOf(pending), 1);
    }
    if (sourcePending.length === 0 || Date.now() >= sourceDeadline) break;
    await sleep(2_000);
  }
  for (const pending of sourcePending) sourceResults.set(pending.assetId, 'missing');
  const withSource = (result: string) => [...sourceResults.entries()].filter(([, value]) => value === result).map(([assetId]) => assetId);

  // --- segments: one set of bytes per path, on every node and in the bucket ---
  const firstSeen = firstSeenHashes(record.segments);
  const conflicts = segmentHashConflicts(record.segments);
  const nodes = await checkNodes(target, firstSeen, conflicts.map((conflict) => conflict.path));
  const bucket = await checkBucket(target, record.segments, firstSeen);

  // --- broadcast ---
  const broadcast = record.broadcast;
  const recordings = recordingIds.map((assetId) => ({
    assetId,
    status: statusOf(assetId) ?? 'unknown',
    durationSeconds: states.get(assetId)?.durationSeconds ?? null,
    errors: states.get(assetId)?.messages ?? [],
  }));
  const reconnects = Math.max(0, (broadcast?.sessions.length ?? 0) - 1);
  const duplicates = duplicateDeliveries(record.webhooks.deliveries);

  return {
    settle: { waitedMs, timedOut: !settled() },
    creates: {
      accepted: record.creates.length,
      ready: createdIds.filter((assetId) => statusOf(assetId) === 'ready').length,
      errored: erroredOf(createdIds),
      stuck: stuckOf(createdIds),
      unreadable: createdIds.filter((assetId) => states.get(assetId)?.unreadable),
    },
    uploads: {
      started: record.uploads.length,
      succeeded: succeeded.length,
      failed: record.uploads.filter((upload) => upload.outcome === 'failed').map((upload) => ({ uploadId: upload.uploadId, failure: upload.failure ?? 'unknown' })),
      cutShort: record.uploads.filter((upload) => upload.outcome === 'cut-short' || upload.outcome === 'in-progress').length,
      assetReady: uploadedAssetIds.filter((assetId) => statusOf(assetId) === 'ready').length,
      assetErrored: erroredOf(uploadedAssetIds),
      assetStuck: stuckOf(uploadedAssetIds),
      withoutAsset: succeeded.filter((upload) => !uploadedAssetIds.includes(uploadAssets.get(upload.uploadId) ?? '')).map((upload) => upload.uploadId),
      sourceIdentical: withSource('identical').length,
      sourceMismatched: withSource('mismatched'),
      sourceMissing: withSource('missing'),
    },
    segments: { observations: record.segments.length, distinctPaths: firstSeen.size, conflicts, nodes, bucket },
    webhooks: {
      endpointRegistered: record.webhooks.endpointId !== null,
      deliveries: record.webhooks.deliveries.length,
      signatureFailures: record.webhooks.signatureFailures,
      assetsExpected: allAssetIds().length,
      missing: missingWebhooks(webhookSubjects(), record.webhooks.deliveries),
      duplicates: duplicates.duplicates,
      duplicateEventIds: duplicates.eventIds,
    },
    broadcast: broadcast
      ? {
          liveStreamId: broadcast.liveStreamId,
          completeStatus: broadcast.completeStatus,
          recordings,
          publishedSeconds: broadcast.publishedSeconds,
          gapSeconds: broadcast.gaps.reduce((sum, gap) => sum + gap.seconds, 0),
          reconnects,
          recordedSeconds: recordings.reduce((sum, recording) => sum + (recording.durationSeconds ?? 0), 0),
          allowedShortfallSeconds: RECORDING_SLACK_SECONDS.base + RECORDING_SLACK_SECONDS.perReconnect * reconnects,
        }
      : null,
    requests: summariseRequests(record.requests),
  };
};
