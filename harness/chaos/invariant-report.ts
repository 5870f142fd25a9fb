import type { RequestFigures } from './request-figures';
import type { SegmentObservation, WebhookDelivery } from './workload-record';

// The end-of-run figures of the chaos soak and the guarantees they must show: nothing a client was
// told succeeded is lost, corrupted or stuck, every segment is one set of bytes everywhere, every
// asset's webhooks arrive exactly once, outages answer 503 (never 500) and nothing hangs. Pure
// functions only; invariants.ts gathers the figures.

export type ErroredAsset = { assetId: string; messages: string[] };

export type SegmentConflict = { path: string; assetId: string; hashes: Array<{ sha256: string; count: number }> };

export type RecordingFigures = { assetId: string; status: string; durationSeconds: number | null; errors: string[] };

export type ChaosInvariants = {
  settle: { waitedMs: number; timedOut: boolean };
  creates: {
    /** 201s. */
    accepted: number;
    ready: number;
    /** Every input is valid: an errored asset is a lost input. */
    errored: ErroredAsset[];
    /** Still preparing when the settle time ran out. */
    stuck: string[];
    /** Could not be read after the run (no answer or 404). */
    unreadable: string[];
  };
  uploads: {
    /** Uploads created (201). */
    started: number;
    /** The last chunk got 200/201. */
    succeeded: number;
    /** Given up by the client (UpChunk's rules): the user's file is lost. */
    failed: Array<{ uploadId: string; failure: string }>;
    /** Still going at the drain deadline (not judged). */
    cutShort: number;
    assetReady: number;
    assetErrored: ErroredAsset[];
    assetStuck: string[];
    /** Succeeded, but no asset was ever named for them. */
    withoutAsset: string[];
    sourceIdentical: number;
    sourceMismatched: string[];
    /** No stored source within the wait, for a ready asset. */
    sourceMissing: string[];
  };
  segments: {
    observations: number;
    distinctPaths: number;
    /** Paths served with more than one body. */
    conflicts: SegmentConflict[];
    nodes: {
      sampledPaths: number;
      fetches: number;
      matched: number;
      mismatched: string[];
      /** Non-200 or no answer from a node after the faults. */
      failed: string[];
    };
    bucket: {
      assetsChecked: number;
      objects: number;
      emptyObjects: string[];
      temporaryObjects: string[];
      /** Segment objects whose bytes differ from what viewers were served. */
      segmentMismatches: string[];
      segmentsCompared: number;
      /** Objects left unread (a cap keeps the check short). */
      notRead: number;
    };
  };
  webhooks: {
    endpointRegistered: boolean;
    deliveries: number;
    signatureFailures: number;
    assetsExpected: number;
    missing: Array<{ assetId: string; expected: string }>;
    /** Extra deliveries of an event id already received. */
    duplicates: number;
    duplicateEventIds: string[];
  };
  broadcast: null | {
    liveStreamId: string;
    completeStatus: number | null;
    recordings: RecordingFigures[];
    publishedSeconds: number;
    gapSeconds: number;
    reconnects: number;
    recordedSeconds: number;
    /** How much shorter than published the recording may be: what a killed node had not yet persisted. */
    allowedShortfallSeconds: number;
  };
  requests: RequestFigures;
};

// Per reconnect, the few seconds the node that went away may have had in memory only.
export const RECORDING_SLACK_SECONDS = { base: 10, perReconnect: 6 };

/** Paths served with more than one distinct body, with how often each was seen. */
export const segmentHashConflicts = (observations: SegmentObservation[]): SegmentConflict[] => {
  const byPath = new Map<string, { assetId: string; counts: Map<string, number> }>();
  for (const observation of observations) {
    const entry = byPath.get(observation.path) ?? { assetId: observation.assetId, counts: new Map<string, number>() };
    entry.counts.set(observation.sha256, (entry.counts.get(observation.sha256) ?? 0) + 1);
    byPath.set(observation.path, entry);
  }
  return [...byPath.entries()]
    .filter(([, entry]) => entry.counts.size > 1)
    .map(([path, entry]) => ({ path, assetId: entry.assetId, hashes: [...entry.counts.entries()].map(([sha256, count]) => ({ sha256, count })) }));
};

/** The body first served for each path (the one others are compared with). */
export const firstSeenHashes = (observations: SegmentObservation[]): Map<string, SegmentObservation> => {
  const first = new Map<string, SegmentObservation>();
  for (const observation of [...observations].sort((a, b) => a.at - b.at)) if (!first.has(observation.path)) first.set(observation.path, observation);
  return first;
};

/** Extra deliveries of event ids already delivered. */
export const duplicateDeliveries = (deliveries: WebhookDelivery[]): { duplicates: number; eventIds: string[] } => {
  const counts = new Map<string, number>();
  for (const delivery of deliveries) counts.set(delivery.eventId, (counts.get(delivery.eventId) ?? 0) + 1);
  const repeated = [...counts.entries()].filter(([, count]) => count > 1);
  return { duplicates: repeated.reduce((sum, [, count]) => sum + count - 1, 0), eventIds: repeated.map(([eventId]) => eventId) };
};

/**
 * For each asset, the webhook types it must have had: `video.asset.created`, and once it has
 * settled, `video.asset.ready` or `video.asset.errored`.
 */
export const missingWebhooks = (
  assets: Array<{ assetId: string; status: string | null }>,
  deliveries: WebhookDelivery[],
): Array<{ assetId: string; expected: string }> => {
  const typesFor = new Map<string, Set<string>>();
  for (const delivery of deliveries) typesFor.set(delivery.objectId, (typesFor.get(delivery.objectId) ?? new Set()).add(delivery.type));
  return assets.flatMap(({ assetId, status }) => {
    const types = typesFor.get(assetId) ?? new Set<string>();
    const missing: Array<{ assetId: string; expected: string }> = [];
    if (!types.has('video.asset.created')) missing.push({ assetId, expected: 'video.asset.created' });
    if ((status === 'ready' || status === 'errored') && !types.has('video.asset.ready') && !types.has('video.asset.errored')) {
      missing.push({ assetId, expected: 'video.asset.ready or video.asset.errored' });
    }
    return missing;
  });
};

const listed = (items: string[], limit = 5): string => `${items.slice(0, limit).join(', ')}${items.length > limit ? `, … (${items.length} in all)` : ''}`;

const erroredText = (assets: ErroredAsset[]): string => listed(assets.map((asset) => `${asset.assetId} (${asset.messages.join('; ') || 'no message'})`));

/**
 * Every broken guarantee, in plain words; empty when all hold. Two figures are reported but are not
 * guarantees: an upload the client gave up on under UpChunk's rules (5 tries 1 s apart cannot
 * outlast a longer bucket outage; what matters is that no upload the client saw succeed is lost),
 * and webhook duplicates (delivery is at least once: a dispatcher that dies between the receiver's
 * answer and its record sends the event again).
 */
export const invariantViolations = (invariants: ChaosInvariants): string[] => {
  const violations: string[] = [];
  const add = (count: number, text: () => string) => {
    if (count > 0) violations.push(text());
  };
  const { creates, uploads, segments, webhooks, broadcast, requests } = invariants;

  add(creates.errored.length, () => `${creates.errored.length} asset(s) created from a valid input URL ended errored (lost inputs): ${erroredText(creates.errored)}`);
  add(creates.stuck.length, () => `${creates.stuck.length} asset(s) created from a URL were still preparing after the settle time: ${listed(creates.stuck)}`);
  add(creates.unreadable.length, () => `${creates.unreadable.length} asset(s) that got a 201 could not be read afterwards: ${listed(creates.unreadable)}`);

  add(uploads.withoutAsset.length, () => `${uploads.withoutAsset.length} upload(s) whose last chunk got 200/201 never became an asset: ${listed(uploads.withoutAsset)}`);
  add(uploads.assetErrored.length, () => `${uploads.assetErrored.length} asset(s) from successful uploads ended errored: ${erroredText(uploads.assetErrored)}`);
  add(uploads.assetStuck.length, () => `${uploads.assetStuck.length} asset(s) from successful uploads were still preparing after the settle time: ${listed(uploads.assetStuck)}`);
  add(uploads.sourceMismatched.length, () => `${uploads.sourceMismatched.length} uploaded asset(s) have a stored source that differs from the bytes sent: ${listed(uploads.sourceMismatched)}`);
  add(uploads.sourceMissing.length, () => `${uploads.sourceMissing.length} ready uploaded asset(s) have no stored source in the bucket: ${listed(uploads.sourceMissing)}`);

  add(segments.conflicts.length, () => `${segments.conflicts.length} segment path(s) were served with different bytes at different times: ${listed(segments.conflicts.map((conflict) => `${conflict.path} (${conflict.hashes.length} versions)`))}`);
  add(segments.nodes.mismatched.length, () => `${segments.nodes.mismatched.length} segment fetch(es) from a single app node differ from what viewers were first served: ${listed(segments.nodes.mismatched)}`);
  add(segments.nodes.failed.length, () => `${segments.nodes.failed.length} segment fetch(es) from a single app node failed after the faults: ${listed(segments.nodes.failed)}`);
  add(segments.bucket.emptyObjects.length, () => `${segments.bucket.emptyObjects.length} empty object(s) in the bucket: ${listed(segments.bucket.emptyObjects)}`);
  add(segments.bucket.temporaryObjects.length, () => `${segments.bucket.temporaryObjects.length} temporary (partial) object(s) left in the bucket: ${listed(segments.bucket.temporaryObjects)}`);
  add(segments.bucket.segmentMismatches.length, () => `${segments.bucket.segmentMismatches.length} segment object(s) in the bucket differ from what viewers were served: ${listed(segments.bucket.segmentMismatches)}`);

  add(webhooks.endpointRegistered ? 0 : 1, () => 'the webhook endpoint could not be registered, so no webhook could be checked');
  add(webhooks.signatureFailures, () => `${webhooks.signatureFailures} webhook request(s) had a signature that did not verify`);
  add(webhooks.missing.length, () => `${webhooks.missing.length} expected webhook(s) never arrived: ${listed(webhooks.missing.map((missing) => `${missing.expected} for ${missing.assetId}`))}`);

  if (broadcast) {
    add(broadcast.completeStatus === 200 ? 0 : 1, () => `completing the live stream answered ${broadcast.completeStatus ?? 'nothing (never sent)'}`);
    add(broadcast.recordings.length === 0 ? 1 : 0, () => `the broadcast (${broadcast.publishedSeconds.toFixed(0)} s published) left no recording asset`);
    const unready = broadcast.recordings.filter((recording) => recording.status !== 'ready');
    add(unready.length, () => `${unready.length} recording asset(s) of the broadcast are not ready: ${listed(unready.map((recording) => `${recording.assetId} ${recording.status}${recording.errors.length ? ` (${recording.errors.join('; ')})` : ''}`))}`);
    const shortfall = broadcast.publishedSeconds - broadcast.recordedSeconds;
    add(broadcast.recordings.length > 0 && shortfall > broadcast.allowedShortfallSeconds ? 1 : 0, () =>
      `the recording holds ${broadcast.recordedSeconds.toFixed(1)} s of ${broadcast.publishedSeconds.toFixed(1)} s published (${broadcast.reconnects} reconnect(s); at most ${broadcast.allowedShortfallSeconds} s may be missing)`,
    );
  }

  add(requests.status500, () => `${requests.status500} request(s) answered 500 (an outage must answer 503): ${listed(requests.status500Examples, 3)}`);
  add(requests.status503WithoutRetryAfter, () => `${requests.status503WithoutRetryAfter} 503 answer(s) had no Retry-After`);
  add(requests.hangs, () => `${requests.hangs} request(s) took 30 s or more (hangs); slowest: ${listed(requests.slowest, 3)}`);
  return violations;
};
