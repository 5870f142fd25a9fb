import { rm } from 'node:fs/promises';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { isStoredFile, sourceFilePath } from '../../storage/asset-files';
import { uploadDataPath, uploadDirectory } from '../../storage/upload-files';
import { shareFileAs, sharedStore } from '../storage/shared-storage';
import { backoffDelayMs } from '../../utils/backoff';

// With S3 storage the ingest of a completed direct upload may run on any node, while the bytes
// are on the node that received them: they are uploaded as the asset's source, in the background
// (the client's last request is not kept waiting for it), and the ingest of another node waits for
// that object (see adopt-uploaded-file.ts). Afterwards this node's copy is dropped, unless its own
// ingest has taken it over meanwhile (then the rename moved it out of the upload folder).
//
// A bucket that is briefly unavailable must not leave the asset waiting for an object that never
// comes (the chaos soak saw one stay `preparing` after a storage outage): the upload is tried again,
// backing off, for as long as another node's ingest would wait for it.

/** As long as adopt-uploaded-file.ts waits for the object. */
const GIVE_UP_AFTER_MS = 15 * 60_000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const shareWithRetries = async (uploadId: string, assetId: string): Promise<void> => {
  const { dataDir } = getEnv();
  const uploaded = uploadDataPath(dataDir, uploadId);
  const startedAt = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      await shareFileAs(uploaded, sourceFilePath(dataDir, assetId));
      await rm(uploadDirectory(dataDir, uploadId), { recursive: true, force: true });
      if (attempt > 0) getLogger().info({ uploadId, assetId, attempts: attempt + 1 }, 'a direct upload reached the bucket after retries');
      return;
    } catch (error) {
      // This node's ingest took the file over (or the upload is gone): nothing left to share.
      if (!(await isStoredFile(uploaded))) return;
      const giveUp = Date.now() - startedAt > GIVE_UP_AFTER_MS;
      getLogger()[giveUp ? 'error' : 'warn']({ err: error, uploadId, assetId, attempt: attempt + 1 }, giveUp ? 'uploading a direct upload to the bucket failed; giving up' : 'uploading a direct upload to the bucket failed; trying again');
      if (giveUp) return;
      await pause(backoffDelayMs(attempt + 1));
    }
  }
};

export const shareUploadedFile = ({ uploadId, assetId }: { uploadId: string; assetId: string }): void => {
  if (sharedStore() === null) return;
  void shareWithRetries(uploadId, assetId);
};
