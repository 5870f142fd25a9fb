import { stat } from 'node:fs/promises';
import path from 'node:path';

// Where a direct upload's bytes are kept until its asset takes them over. The data file only ever
// grows by appending, so its size is the number of bytes received.

export const uploadDirectory = (dataDir: string, uploadId: string): string => path.join(dataDir, 'uploads', uploadId);

export const uploadDataPath = (dataDir: string, uploadId: string): string =>
  path.join(uploadDirectory(dataDir, uploadId), 'data');

/** How many bytes of an upload's data file are stored (0 before the first). */
export const receivedByteCount = async (dataPath: string): Promise<number> => (await stat(dataPath).catch(() => null))?.size ?? 0;
