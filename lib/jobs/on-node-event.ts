import type { NodeEventHandlers } from '../coordination/node-events';
import { cancelAssetWork } from './signals';

// A deleted asset's encodes and ingest stop wherever they run.
export const jobsOnNodeEvent: NodeEventHandlers = {
  'asset-deleted': ({ assetId }) => cancelAssetWork(assetId),
};
