import { rm } from 'node:fs/promises';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { sourceFilePath } from '../../storage/asset-files';
import { uploadDataPath, uploadDirectory } from '../../storage/upload-files';
import { shareFileAs, sharedStore } from '../storage/shared-storage';

// With S3 storage the ingest of a completed direct upload may run on any node, while the bytes
// are on the node that received them: they are uploaded as the asset's source, in the background
// (the client's last request is not kept waiting for it), and the ingest of another node waits for
// that object (see adopt-uploaded-file.ts). Afterwards this node's copy is dropped, unless its own
// ingest has taken it over meanwhile (then the rename moved it out of the upload folder).
export const shareUploadedFile = ({ uploadId, assetId }: { uploadId: string; assetId: string }): void => {
  if (sharedStore() === null) return;
  const { dataDir } = getEnv();
  shareFileAs(uploadDataPath(dataDir, uploadId), sourceFilePath(dataDir, assetId))
    .then(() => rm(uploadDirectory(dataDir, uploadId), { recursive: true, force: true }))
    .catch((error: unknown) => getLogger().warn({ err: error, uploadId, assetId }, 'uploading a direct upload to the bucket failed'));
};
