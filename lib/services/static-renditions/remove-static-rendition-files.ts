import { rm } from 'node:fs/promises';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { staticRenditionPath } from '../../storage/asset-files';
import { unshareFile } from '../storage/shared-storage';

// After their rows are gone (so no node serves them any more): this node's copy and the bucket's.
// Other nodes' copies are never served without a row, and are replaced if the file is built again.
export const removeStaticRenditionFiles = async (assetId: string, names: string[]): Promise<void> => {
  for (const name of names) {
    const filePath = staticRenditionPath(getEnv().dataDir, assetId, name);
    await rm(filePath, { force: true });
    await unshareFile(filePath).catch((error: unknown) => getLogger().warn({ err: error, filePath }, 'removing a static rendition from the bucket failed'));
  }
};
