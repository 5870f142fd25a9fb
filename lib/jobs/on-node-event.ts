import type { NodeEventHandlers } from '../coordination/node-event';
import { cancelAssetWork } from './signals';

// A deleted asset's encodes and ingest stop wherever they run.
export const jobsOnNodeEvent: NodeEventHandlers = {
  'asset-deleted': ({ assetId }) => cancelAssetWork(assetId),
};
