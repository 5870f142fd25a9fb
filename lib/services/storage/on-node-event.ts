import type { NodeEventHandlers } from '../../coordination/node-event';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { removeAssetFiles } from '../../storage/asset-files';
import { deleteSharedAsset } from './shared-storage';

export const storageOnNodeEvent: NodeEventHandlers = {
  'asset-deleted': ({ assetId }) => {
    // The node that deleted it waits for the shares listed before this one (the asset 404s here
    // from then on); the files go behind it, after this node's own uploads of the asset settle, so
    // none lands after the bucket was emptied.
    void deleteSharedAsset(assetId)
      .then(() => removeAssetFiles(getEnv().dataDir, assetId))
      .catch((error: unknown) => getLogger().warn({ err: error, assetId }, 'removing a deleted asset’s files failed'));
  },
};
