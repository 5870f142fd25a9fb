import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { errorMessage } from '../stats';
import { WebhookReceiver } from '../webhook-receiver';
import { startBroadcast, type Broadcast } from './broadcaster';
import { abortableSleep, createRecordedHttp, dataOf } from './recorded-http';
import type { ChaosTarget } from './target';
import { runDirectUpload, type UploadFile } from './upload-client';
import { runViewerLoop, type WatchableAsset } from './viewers';
import type { ChaosRates, WorkloadRecord } from './workload-record';

// The steady mixed load of the chaos soak: integrators creating assets from URLs and browsers
// uploading files, viewers watching what is ready, a dashboard-like reader polling the API, a
// webhook endpoint, and (when the deployment has RTMP ingest) one live broadcast. It only records:
// faults are injected by others, and the invariants are judged afterwards from the record.

export type { ChaosRates, WorkloadRecord } from './workload-record';

// Sized for a 2-core machine that also runs four Keyframe nodes and their ffmpeg: a few assets a
// minute, each watched by a handful of viewers.
export const DEFAULT_CHAOS_RATES: ChaosRates = {
  createEveryMs: 8_000,
  uploadEveryMs: 15_000,
  uploadChunkBytes: 512 * 1024,
  viewers: 3,
  watchSeconds: 20,
  apiReadEveryMs: 1_000,
  broadcast: true,
};

// After stop(), how long operations under way may take to finish before they are cut short.
const DRAIN_MS = 35_000;

export type ChaosWorkloadOptions = {
  target: ChaosTarget;
  /** Aborting it stops new work, like stop() (which still has to be called for the record). */
  signal: AbortSignal;
  rates?: Partial<ChaosRates>;
  log?: (line: string) => void;
};

export type ChaosWorkload = {
  /** Resolves once the webhook endpoint is registered and the load is running. */
  ready: Promise<void>;
  /** Stops new work, lets operations under way end (at most ~35 s), and returns the record. */
  stop(): Promise<WorkloadRecord>;
  /** Closes the webhook receiver (after the invariant checks: deliveries still arrive until then). */
  close(): Promise<void>;
};

type AssetObject = { id?: string; status?: string; playback_ids?: Array<{ id?: string; policy?: string }> };
type WebhookEvent = { id?: string; type?: string; object?: { id?: string }; data?: AssetObject };

const randomItem = <T>(items: readonly T[]): T | undefined => items[Math.floor(Math.random() * items.length)];

export const startChaosWorkload = ({ target, signal, rates: rateOverrides, log: logLine }: ChaosWorkloadOptions): ChaosWorkload => {
  const rates: ChaosRates = { ...DEFAULT_CHAOS_RATES, ...rateOverrides };
  const log = (line: string) => logLine?.(`[workload] ${line}`);
  const record: WorkloadRecord = {
    startedAt: Date.now(),
    stoppedAt: null,
    finishedAt: null,
    rates,
    requests: [],
    creates: [],
    uploads: [],
    viewers: [],
    segments: [],
    webhooks: { endpointId: null, deliveries: [], signatureFailures: 0 },
    broadcast: null,
    playbackIds: {},
  };
  const stopRequested = new AbortController();
  const newWork = AbortSignal.any([signal, stopRequested.signal]);
  const cutShort = new AbortController();
  const http = createRecordedHttp(target, record.requests, cutShort.signal);

  const inFlight = new Set<Promise<void>>();
  const track = (work: () => Promise<void>) => {
    const running: Promise<void> = work()
      .catch((error: unknown) => log(`unexpected failure: ${errorMessage(error)}`))
      .finally(() => inFlight.delete(running));
    inFlight.add(running);
  };

  // What the clients know of their own assets' state, from API answers and webhooks.
  const statusById = new Map<string, string>();
  const ownAssetIds = (): string[] => [
    ...record.creates.map((created) => created.assetId),
    ...record.uploads.flatMap((upload) => (upload.assetId ? [upload.assetId] : [])),
  ];
  const learn = (asset: AssetObject | undefined) => {
    if (!asset?.id) return;
    if (asset.status) statusById.set(asset.id, asset.status);
    const playbackId = asset.playback_ids?.find((playback) => playback.policy === 'public')?.id ?? asset.playback_ids?.[0]?.id;
    if (playbackId) record.playbackIds[asset.id] = playbackId;
  };
  const pickWatchable = (): WatchableAsset | null => {
    const ready = ownAssetIds().flatMap((assetId) => {
      const playbackId = record.playbackIds[assetId];
      return statusById.get(assetId) === 'ready' && playbackId ? [{ assetId, playbackId }] : [];
    });
    return randomItem(ready) ?? null;
  };

  let receiver: WebhookReceiver | undefined;
  const syncSignatureFailures = () => {
    if (receiver) record.webhooks.signatureFailures = receiver.received.filter((entry) => entry.verifyError !== undefined).length;
  };
  const registerWebhooks = async () => {
    receiver = await WebhookReceiver.start(0, { verifySignatures: true });
    receiver.reply = ({ event }) => {
      const envelope = event as WebhookEvent;
      const objectId = envelope.object?.id ?? envelope.data?.id ?? '';
      record.webhooks.deliveries.push({ eventId: envelope.id ?? '', type: envelope.type ?? '', objectId, receivedAt: Date.now() });
      if (envelope.type?.startsWith('video.asset.')) learn(envelope.data);
      syncSignatureFailures();
      return 200;
    };
    try {
      const endpoint = await target.createWebhookEndpoint(receiver.url);
      receiver.secret = endpoint.secret;
      record.webhooks.endpointId = endpoint.id;
    } catch (error) {
      record.webhooks.setupError = errorMessage(error);
      log(`could not register the webhook endpoint: ${record.webhooks.setupError}`);
    }
  };

  const createFromUrl = async () => {
    const answer = await http.api('asset-create', 'POST', '/video/v1/assets', { inputs: [{ url: target.inputUrl }], playback_policy: ['public'] });
    const asset = dataOf<AssetObject>(answer);
    if (answer.status === 201 && asset?.id) {
      learn(asset);
      record.creates.push({ assetId: asset.id, playbackId: record.playbackIds[asset.id] ?? null, createdAt: Date.now() });
    } else if (answer.status !== 201) {
      log(`create answered ${answer.status}${answer.status === 0 ? '' : ` ${answer.body.toString('utf8').slice(0, 200)}`}`);
    }
  };

  // Alternately what a dashboard shows (the latest assets) and one asset an integrator polls,
  // preferring those not known to be ready yet.
  let readCount = 0;
  const readApi = async () => {
    readCount++;
    const own = ownAssetIds();
    const pending = own.filter((assetId) => !['ready', 'errored'].includes(statusById.get(assetId) ?? ''));
    const assetId = pending.length > 0 ? pending[readCount % pending.length] : randomItem(own);
    if (readCount % 2 === 0 || !assetId) {
      const answer = await http.api('asset-list', 'GET', '/video/v1/assets?limit=10');
      const ownSet = new Set(own);
      for (const asset of dataOf<AssetObject[]>(answer) ?? []) if (asset.id && ownSet.has(asset.id)) learn(asset);
    } else {
      learn(dataOf<AssetObject>(await http.api('asset-get', 'GET', `/video/v1/assets/${assetId}`)));
    }
  };

  const every = async (intervalMs: number, firstAfterMs: number, work: () => Promise<void>) => {
    await abortableSleep(firstAfterMs, newWork);
    while (!newWork.aborted) {
      track(work);
      await abortableSleep(intervalMs, newWork);
    }
  };

  let broadcast: Broadcast | null = null;
  const loops: Array<Promise<unknown>> = [];
  const ready = (async () => {
    const bytes = await readFile(target.uploadFile);
    const uploadFile: UploadFile = { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
    await registerWebhooks();
    if (newWork.aborted) return;
    if (rates.broadcast) {
      broadcast = await startBroadcast({ target, http, log }).catch((error: unknown) => {
        log(`broadcast did not start: ${errorMessage(error)}`);
        return null;
      });
    }
    const upload = () => runDirectUpload({ http, file: uploadFile, chunkBytes: rates.uploadChunkBytes, uploads: record.uploads, cutShort: cutShort.signal, log });
    loops.push(
      every(rates.createEveryMs, 0, createFromUrl),
      every(rates.uploadEveryMs, rates.uploadEveryMs / 3, upload),
      every(rates.apiReadEveryMs, rates.apiReadEveryMs / 2, readApi),
      ...Array.from({ length: rates.viewers }, (_, viewer) =>
        abortableSleep(viewer * 2_000, newWork).then(() =>
          runViewerLoop({ target, pick: pickWatchable, watchSeconds: rates.watchSeconds, newWork, cutShort: cutShort.signal, record }),
        ),
      ),
    );
  })();
  ready.catch(() => undefined);

  let stopped: Promise<WorkloadRecord> | undefined;
  const stop = (): Promise<WorkloadRecord> => {
    stopped ??= (async () => {
      record.stoppedAt = Date.now();
      stopRequested.abort();
      const drainDeadline = setTimeout(() => cutShort.abort(), DRAIN_MS);
      try {
        await ready.catch((error: unknown) => log(`workload did not start: ${errorMessage(error)}`));
        const broadcastRecord = broadcast?.finish() ?? Promise.resolve(null);
        await Promise.all(loops);
        while (inFlight.size > 0) await Promise.all([...inFlight]);
        record.broadcast = await broadcastRecord;
      } finally {
        clearTimeout(drainDeadline);
      }
      record.finishedAt = Date.now();
      syncSignatureFailures();
      return record;
    })();
    return stopped;
  };

  const close = async () => {
    await stop();
    syncSignatureFailures();
    await receiver?.close();
  };

  return { ready, stop, close };
};
