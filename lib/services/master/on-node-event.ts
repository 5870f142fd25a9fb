import type { NodeEventHandlers } from '../../coordination/node-event';
import { removeLocalMasterFiles } from './master-state';

export const masterOnNodeEvent: NodeEventHandlers = {
  // Never served once the row says none, but a copy left here would hold disk for nothing.
  'master-deleted': ({ assetId }) => removeLocalMasterFiles(assetId),
};
