import type { NodeEventHandlers } from '../../coordination/node-event';
import { removeLocalStaticRenditionFiles } from './remove-local-static-rendition-files';

export const staticRenditionsOnNodeEvent: NodeEventHandlers = {
  // Never served without their row, but a copy left here would outlive the asset's use of it.
  'static-renditions-deleted': ({ assetId, files }) => removeLocalStaticRenditionFiles(assetId, files),
};
