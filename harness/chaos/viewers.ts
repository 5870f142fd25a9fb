import { createHash } from 'node:crypto';
import http from 'node:http';
import { errorMessage } from '../stats';
import { runSimulatedViewer, type FetchKind, type ViewerReport } from '../simulated-viewer';
import { abortableSleep, CLIENT_TIMEOUT_MS } from './recorded-http';
import type { ChaosTarget } from './target';
import type { RequestKind, RequestRecord, SegmentKind, SegmentObservation, ViewerSession, WorkloadRecord } from './workload-record';

// Viewers through the balancer, one simulated player each (harness/simulated-viewer.ts), watching
// one ready asset after another. Every fetch becomes a request record, and every media body a
// viewer was served is hashed by URL path: the same path must always be the same bytes, whichever
// node answered and whatever fault was under way.

export type WatchableAsset = { assetId: string; playbackId: string };

const REQUEST_KINDS: Record<FetchKind, RequestKind> = {
  multivariant: 'playback-multivariant',
  playlist: 'playback-playlist',
  init: 'playback-init',
  video: 'playback-video',
  audio: 'playback-audio',
};

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

const pathOf = (url: string): string => new URL(url).pathname;

/** A finished viewer's report as request records and hashed media bodies (pure; viewerStartedAt is Date.now() at its start). */
export const recordsOfViewer = (
  report: Pick<ViewerReport, 'fetches' | 'kept'>,
  viewerStartedAt: number,
  assetId: string,
): { requests: RequestRecord[]; observations: SegmentObservation[]; unmatchedBodies: number } => {
  const requests = report.fetches.map(
    (fetch): RequestRecord => ({
      kind: REQUEST_KINDS[fetch.kind],
      method: 'GET',
      path: `${pathOf(fetch.url)}${new URL(fetch.url).search}`,
      startedAt: Math.round(viewerStartedAt + fetch.atMs - fetch.ms),
      durationMs: Math.round(fetch.ms),
      status: fetch.status,
      headersUnseen: true,
      ...(fetch.error ? { note: fetch.error } : {}),
    }),
  );
  // The viewer keeps a body right after recording its 200, so the n-th kept body is the n-th
  // successful media fetch.
  const served = report.fetches.filter((fetch) => fetch.status === 200 && fetch.kind !== 'multivariant' && fetch.kind !== 'playlist');
  const observations: SegmentObservation[] = [];
  let unmatchedBodies = 0;
  report.kept.forEach((kept, position) => {
    const fetch = served[position];
    if (!fetch || fetch.kind !== kept.kind || fetch.rendition !== kept.rendition || fetch.index !== kept.index) {
      unmatchedBodies++;
      return;
    }
    observations.push({
      path: pathOf(fetch.url),
      assetId,
      kind: kept.kind as SegmentKind,
      rendition: kept.rendition,
      index: kept.index,
      sha256: sha256(kept.body),
      at: Math.round(viewerStartedAt + fetch.atMs),
    });
  });
  return { requests, observations, unmatchedBodies };
};

const watchOnce = async (target: ChaosTarget, asset: WatchableAsset, watchSeconds: number, cutShort: AbortSignal, record: WorkloadRecord) => {
  // An agent of its own, like a browser tab's connections: destroying it at the drain deadline
  // ends a request stuck on a hung node, which the viewer's own timeout would not do in time.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 6 });
  const dropConnections = () => agent.destroy();
  cutShort.addEventListener('abort', dropConnections, { once: true });
  const startedAt = Date.now();
  const session: ViewerSession = {
    ...asset,
    startedAt,
    wallMs: 0,
    startupMs: null,
    stalls: 0,
    stalledSeconds: 0,
    fetches: 0,
    failedFetches: 0,
    fetchedEverything: false,
  };
  try {
    const report = await runSimulatedViewer({
      multivariantUrl: `${target.baseUrl}/${asset.playbackId}.m3u8`,
      wallSeconds: watchSeconds,
      agent,
      keep: () => true,
      signal: cutShort,
      requestTimeoutMs: CLIENT_TIMEOUT_MS,
    });
    const { requests, observations, unmatchedBodies } = recordsOfViewer(report, startedAt, asset.assetId);
    record.requests.push(...requests);
    record.segments.push(...observations);
    if (unmatchedBodies > 0) session.error = `${unmatchedBodies} kept bodies did not line up with the fetches (not hashed)`;
    Object.assign(session, {
      wallMs: Math.round(report.wallMs),
      startupMs: report.startupMs === null ? null : Math.round(report.startupMs),
      stalls: report.stalls,
      stalledSeconds: report.stalledSeconds,
      fetches: report.fetches.length,
      failedFetches: report.errors.length,
      fetchedEverything: report.fetchedEverything,
    });
  } catch (error) {
    session.wallMs = Date.now() - startedAt;
    session.error = errorMessage(error);
  } finally {
    cutShort.removeEventListener('abort', dropConnections);
    agent.destroy();
    record.viewers.push(session);
  }
};

/** One viewer: watches assets `pick` offers until `newWork` is aborted (waits while there is none). */
export const runViewerLoop = async ({
  target,
  pick,
  watchSeconds,
  newWork,
  cutShort,
  record,
}: {
  target: ChaosTarget;
  pick: () => WatchableAsset | null;
  watchSeconds: number;
  newWork: AbortSignal;
  cutShort: AbortSignal;
  record: WorkloadRecord;
}): Promise<void> => {
  while (!newWork.aborted) {
    const asset = pick();
    if (!asset) {
      await abortableSleep(2_000, newWork);
      continue;
    }
    const startedAt = Date.now();
    await watchOnce(target, asset, watchSeconds, cutShort, record);
    // The simulated player stops fetching once it has the whole asset buffered; the person
    // watching stays until the watch time is over before picking the next video.
    await abortableSleep(startedAt + watchSeconds * 1000 - Date.now(), newWork);
  }
};
