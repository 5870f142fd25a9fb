import path from 'node:path';

// Where a direct upload's bytes are kept until its asset takes them over. The data file only ever
// grows by appending, so its size is the number of bytes received.

export const uploadDirectory = (dataDir: string, uploadId: string): string => path.join(dataDir, 'uploads', uploadId);

export const uploadDataPath = (dataDir: string, uploadId: string): string =>
  path.join(uploadDirectory(dataDir, uploadId), 'data');
