import { getLogger } from '../../log';
import { getEnv } from '../../env';
import { staticRenditionPath } from '../../storage/asset-files';
import { tellOtherNodes } from '../../coordination/tell-other-nodes';
import { unshareFile } from '../storage/shared-storage';
import { removeLocalStaticRenditionFiles } from './remove-local-static-rendition-files';

// After their rows are gone (so no node serves them any more): this node's copies, the bucket's,
// and those other nodes fetched to serve them.
export const removeStaticRenditionFiles = async (assetId: string, files: Array<{ id: string; name: string }>): Promise<void> => {
  if (files.length === 0) return;
  await removeLocalStaticRenditionFiles(assetId, files);
  for (const file of files) {
    const filePath = staticRenditionPath(getEnv().dataDir, assetId, file);
    await unshareFile(filePath).catch((error: unknown) => getLogger().warn({ err: error, filePath }, 'removing a static rendition from the bucket failed'));
  }
  await tellOtherNodes({ type: 'static-renditions-deleted', assetId, files: files.map(({ id, name }) => ({ id, name })) });
};
