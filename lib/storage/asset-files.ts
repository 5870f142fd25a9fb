import { rm } from 'node:fs/promises';
import path from 'node:path';

// The one place that decides where an asset's files live under DATA_DIR.

export const assetDirectory = (dataDir: string, assetId: string): string => path.join(dataDir, 'assets', assetId);

export const sourceFilePath = (dataDir: string, assetId: string): string =>
  path.join(assetDirectory(dataDir, assetId), 'source');

export const removeAssetFiles = async (dataDir: string, assetId: string): Promise<void> => {
  await rm(assetDirectory(dataDir, assetId), { recursive: true, force: true });
};
