import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { assetJson } from '../master/master-links';
import { assetInclude } from '../records/asset-record';
import { forgetAssetPlayback } from '../playback/playback-records';
import { queueReadyAssetRenditions } from '../static-renditions/queue-ready-asset-renditions';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { objectKeyOf, sourceFilePath } from '../../storage/asset-files';
import { sharedStore } from '../storage/shared-storage';
import { rm } from 'node:fs/promises';
import { getLogger } from '../../log';

export type AssetErrorType = 'download_failed' | 'invalid_input';

// Moves a preparing asset to `errored` with a reason the user can act on, and drops the unusable
// source so it does not take disk space. A ready asset whose source could not be completed (it
// became ready while the source was still downloading) can be moved too, with `fromReady`. video.asset.errored is recorded with the status change, and
// only if this call made it (an asset deleted or already finished meanwhile reports nothing).
export const markAssetErrored = async ({
  assetId,
  type,
  messages,
  fromReady = false,
}: {
  assetId: string;
  type: AssetErrorType;
  messages: string[];
  fromReady?: boolean;
}): Promise<void> => {
  await getDb().$transaction(async (tx) => {
    const updated = await tx.asset.updateMany({
      where: { id: assetId, status: { in: fromReady ? ['preparing', 'ready'] : ['preparing'] } },
      data: {
        status: 'errored',
        progressState: 'errored',
        errorType: type,
        errorMessagesJson: JSON.stringify(messages),
      },
    });
    if (updated.count === 0) return;
    const errored = await tx.asset.findUniqueOrThrow({ where: { id: assetId }, include: assetInclude });
    await recordWebhookEvent(tx, { type: 'video.asset.errored', object: { type: 'asset', id: assetId }, data: assetJson(errored) });
  });
  await forgetAssetPlayback(assetId);
  // Its static renditions can never be built: their jobs record them errored, with webhooks.
  await queueReadyAssetRenditions(assetId);
  const sourcePath = sourceFilePath(getEnv().dataDir, assetId);
  await rm(sourcePath, { force: true });
  const key = objectKeyOf(getEnv().dataDir, sourcePath);
  await sharedStore()
    ?.delete(key)
    .catch((error: unknown) => getLogger().warn({ err: error, key }, 'deleting an unusable source from the bucket failed'));
};
