import { tellOtherNodes } from '../../coordination/tell-other-nodes';
import { nodeRuntime } from '../../runtime/node-runtime';
import { emptySlot, type Slot } from '../../utils/slot';

// How the API ends a broadcast. The broadcast runs on the node holding the publisher's RTMP
// connection; the live runtime there registers itself here, and the other nodes are told (with
// Redis). Kept in the node runtime: the API's route handlers are bundled apart from the server
// running it.

export type BroadcastStopReason = 'complete' | 'disable' | 'delete' | 'reset-key';

type BroadcastStopper = (liveStreamId: string, reason: BroadcastStopReason) => Promise<void>;

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    broadcastStopper: Slot<BroadcastStopper>;
  }
}

export const createBroadcastStopperSlot = (): Slot<BroadcastStopper> => emptySlot();

const stopper = () => nodeRuntime().broadcastStopper;

export const registerBroadcastStopper = (stop: BroadcastStopper | null): void => {
  stopper().current = stop;
};

/**
 * Ends the stream's current broadcast, if any: `complete` and `disable` close the recording (the
 * playlist gains EXT-X-ENDLIST) and disconnect the publisher; `reset-key` disconnects the
 * publisher, whose key no longer works; `delete` does both before the stream's row goes.
 * Resolves once the local part is done; state changes arrive as the usual webhooks.
 */
export const stopBroadcast = async (liveStreamId: string, reason: BroadcastStopReason): Promise<void> => {
  await stopLocalBroadcast(liveStreamId, reason);
  await tellOtherNodes({ type: 'live-broadcast-stop', liveStreamId, reason });
};

/** This node's part of stopBroadcast (also what another node's request runs here). */
export const stopLocalBroadcast = async (liveStreamId: string, reason: BroadcastStopReason): Promise<void> => {
  await stopper().current?.(liveStreamId, reason);
};
