import { nodeRuntime } from '../runtime/node-runtime';
import { processSignal } from '../coordination/process-signal';

// Process-wide signals between request handlers and the in-process worker: "a job was enqueued"
// (so the worker need not wait for its next poll) and "stop work on this asset" (deletion).

const jobEnqueued = processSignal('job-enqueued');

export const notifyJobEnqueued = jobEnqueued.notify;
export const onJobEnqueued = jobEnqueued.subscribe;

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    /** The abort controllers of the work running on each asset, for cancelAssetWork. */
    assetWork: Map<string, Set<AbortController>>;
  }
}

export const createAssetWork = (): Map<string, Set<AbortController>> => new Map();

const assetWork = () => nodeRuntime().assetWork;

export const registerAssetWork = (assetId: string, controller: AbortController): (() => void) => {
  const registry = assetWork();
  const controllers = registry.get(assetId) ?? new Set<AbortController>();
  controllers.add(controller);
  registry.set(assetId, controllers);
  return () => {
    controllers.delete(controller);
    if (controllers.size === 0) registry.delete(assetId);
  };
};

export const cancelAssetWork = (assetId: string): void => {
  for (const controller of assetWork().get(assetId) ?? []) controller.abort(new Error(`asset ${assetId} was deleted`));
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
