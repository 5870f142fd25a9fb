import { nodeRuntime } from '../runtime/node-runtime';
import { emptySlot, type Slot } from '../utils/slot';

// The playback workers in front of this process (lib/server/playback-workers.ts) answer public
// playlists from their own memory. Whatever makes such an answer wrong (a deleted asset or playback
// ID, an asset that errored) must reach them before the change is reported done, so the next
// request is refused at once. The server registers how to tell them; services call
// `forgetAtPlaybackWorkers`, which resolves once every worker has dropped the entries (at once
// when there are no workers).

export type PlaybackWorkerForget = { playbackId: string } | { assetId: string };

type Forgetter = (what: PlaybackWorkerForget) => Promise<void>;

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    /** How to tell this process's playback workers, registered by the server when it has some. */
    playbackWorkerForgetter: Slot<Forgetter>;
  }
}

export const createPlaybackWorkerForgetterSlot = (): Slot<Forgetter> => emptySlot();

const slot = () => nodeRuntime().playbackWorkerForgetter;

export const registerPlaybackWorkerForgetter = (forgetter: Forgetter | null): void => {
  slot().current = forgetter;
};

export const forgetAtPlaybackWorkers = async (what: PlaybackWorkerForget): Promise<void> => {
  await slot().current?.(what);
};
