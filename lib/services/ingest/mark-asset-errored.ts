import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { sourceFilePath } from '../../storage/asset-files';
import { rm } from 'node:fs/promises';

export type AssetErrorType = 'download_failed' | 'invalid_input';

// Moves a preparing asset to `errored` with a reason the user can act on, and drops the unusable
// source so it does not take disk space.
export const markAssetErrored = async ({
  assetId,
  type,
  messages,
}: {
  assetId: string;
  type: AssetErrorType;
  messages: string[];
}): Promise<void> => {
  await getDb().asset.updateMany({
    where: { id: assetId, status: 'preparing' },
    data: {
      status: 'errored',
      progressState: 'errored',
      errorType: type,
      errorMessagesJson: JSON.stringify(messages),
    },
  });
  await rm(sourceFilePath(getEnv().dataDir, assetId), { force: true });
};
