import { rm } from 'node:fs/promises';
import { getEnv } from '../../env';
import { staticRenditionPath } from '../../storage/asset-files';

/** This node's copies of an asset's static renditions. */
export const removeLocalStaticRenditionFiles = async (assetId: string, names: string[]): Promise<void> => {
  for (const name of names) await rm(staticRenditionPath(getEnv().dataDir, assetId, name), { force: true });
};
