import { createHash } from 'node:crypto';
import { getEnv } from '../../env';
import { ApiError } from '../../errors/api-error';
import { withAssetCancellation } from '../../jobs/signals';
import { getLogger } from '../../log';
import { nodeRuntime } from '../../runtime/node-runtime';
import { imageFilePath, isStoredFile } from '../../storage/asset-files';
import { SingleFlight } from '../../utils/single-flight';
import { publishFile } from '../../storage/atomic-file';
import { isStoredHereOrInReachableBucket, shareInBackground } from '../storage/shared-storage';

// Images are generated on the first request and then served from the asset's folder. Concurrent
// requests for one image share one generation; the file is published atomically (temp + rename),
// so a reader never sees half an image; deleting the asset aborts a generation in progress.

const assetDeleted = () => new ApiError('not_found', 'Asset not found');

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    /** Image generations in progress, by file. */
    imageGenerations: SingleFlight<string>;
  }
}

export const createImageGenerations = () => new SingleFlight<string>();

const generations = () => nodeRuntime().imageGenerations;

/** A file name for an image, from everything that determines its pixels. */
export const imageFileName = (kind: string, key: Record<string, unknown>, extension: string): string => {
  const digest = createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 20);
  return `${kind}-${digest}.${extension}`;
};

export const ensureImageFile = async ({
  assetId,
  fileName,
  generate,
}: {
  assetId: string;
  fileName: string;
  generate: (signal: AbortSignal) => Promise<Uint8Array>;
}): Promise<string> => {
  const target = imageFilePath(getEnv().dataDir, assetId, fileName);
  if (await isStoredFile(target)) return target;
  return generations().run(target, async () => {
    if (await isStoredHereOrInReachableBucket(target)) return target;
    const startedAt = performance.now();
    await withAssetCancellation(assetId, undefined, async (signal) => {
      const data = await generate(signal).catch((error: unknown) => {
        throw signal.aborted ? assetDeleted() : error;
      });
      if (signal.aborted) throw assetDeleted();
      await publishFile(target, data);
      shareInBackground(target, data);
      getLogger().debug({ assetId, fileName, ms: Math.round(performance.now() - startedAt), bytes: data.length }, 'image generated');
    });
    return target;
  });
};
