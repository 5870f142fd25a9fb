import { rm } from 'node:fs/promises';
import { getEnv } from '../../env';
import { staticRenditionPath } from '../../storage/asset-files';

/** This node's copies of an asset's static renditions. */
export const removeLocalStaticRenditionFiles = async (assetId: string, files: Array<{ id: string; name: string }>): Promise<void> => {
  for (const file of files) await rm(staticRenditionPath(getEnv().dataDir, assetId, file), { force: true });
};
