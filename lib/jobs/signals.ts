import { nodeRuntime } from '../runtime/node-runtime';
import { processSignal } from '../coordination/process-signal';

// Process-wide signals between request handlers and the in-process worker: "a job was enqueued"
// (so the worker need not wait for its next poll) and "stop work on this asset" (deletion).

const jobEnqueued = processSignal('job-enqueued');

export const notifyJobEnqueued = jobEnqueued.notify;
export const onJobEnqueued = jobEnqueued.subscribe;

type AssetWork = {
  /** The abort controllers of the work running on each asset, for cancelAssetWork. */
  running: Map<string, Set<AbortController>>;
  /**
   * Assets deleted while this node ran, most recent last: work queued before the deletion that only
   * starts after it (a prefetch, an audio track waiting for an encoder) is aborted at once instead
   * of writing files into a directory the deletion already removed.
   */
  deleted: Set<string>;
};

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    assetWork: AssetWork;
  }
}

/** Deleted asset ids remembered; far more than the work that can be queued at once. */
export const DELETED_ASSETS_REMEMBERED = 10_000;

export const createAssetWork = (): AssetWork => ({ running: new Map(), deleted: new Set() });

const assetWork = () => nodeRuntime().assetWork;

const deletedError = (assetId: string) => new Error(`asset ${assetId} was deleted`);

export const registerAssetWork = (assetId: string, controller: AbortController): (() => void) => {
  const { running, deleted } = assetWork();
  if (deleted.has(assetId)) controller.abort(deletedError(assetId));
  const controllers = running.get(assetId) ?? new Set<AbortController>();
  controllers.add(controller);
  running.set(assetId, controllers);
  return () => {
    controllers.delete(controller);
    if (controllers.size === 0) running.delete(assetId);
  };
};

export const cancelAssetWork = (assetId: string): void => {
  const { running, deleted } = assetWork();
  deleted.add(assetId);
  if (deleted.size > DELETED_ASSETS_REMEMBERED) deleted.delete(deleted.values().next().value!);
  for (const controller of running.get(assetId) ?? []) controller.abort(deletedError(assetId));
};

// Runs `work` with a signal that aborts when either `parent` aborts or the asset is deleted.
export const withAssetCancellation = async <T>(
  assetId: string,
  parent: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> => {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent?.reason);
  parent?.addEventListener('abort', onAbort, { once: true });
  if (parent?.aborted) onAbort();
  const unregister = registerAssetWork(assetId, controller);
  try {
    return await work(controller.signal);
  } finally {
    unregister();
    parent?.removeEventListener('abort', onAbort);
  }
};
