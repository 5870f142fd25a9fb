import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { getEnv } from '../../env';
import { isStoredFile } from '../../storage/asset-files';
import { uploadDataPath, uploadDirectory } from '../../storage/upload-files';

// A direct upload's file becomes the asset's source by a rename (same file system, no copy), so a
// multi-gigabyte upload is ready to probe at once. Returns false if there is no file to adopt.
export const adoptUploadedFile = async ({ uploadId, sourcePath }: { uploadId: string; sourcePath: string }): Promise<boolean> => {
  const { dataDir } = getEnv();
  const uploaded = uploadDataPath(dataDir, uploadId);
  if (!(await isStoredFile(uploaded))) return false;
  await mkdir(path.dirname(sourcePath), { recursive: true });
  await rename(uploaded, sourcePath);
  await rm(uploadDirectory(dataDir, uploadId), { recursive: true, force: true });
  return true;
};
