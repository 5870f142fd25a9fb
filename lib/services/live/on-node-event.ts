import type { NodeEventHandlers } from '../../coordination/node-event';
import { stopLocalBroadcast } from './broadcast-control';

// The API ended a broadcast on another node: the node holding its publisher stops it.
export const liveOnNodeEvent: NodeEventHandlers = {
  'live-broadcast-stop': ({ liveStreamId, reason }) => stopLocalBroadcast(liveStreamId, reason),
};
