import { nodeRuntime } from '../runtime/node-runtime';

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
    playbackWorkerCaches: { forgetter: Forgetter | null };
  }
}

export const createPlaybackWorkerCaches = (): { forgetter: Forgetter | null } => ({ forgetter: null });

const state = () => nodeRuntime().playbackWorkerCaches;

export const registerPlaybackWorkerForgetter = (forgetter: Forgetter | null): void => {
  state().forgetter = forgetter;
};

export const forgetAtPlaybackWorkers = async (what: PlaybackWorkerForget): Promise<void> => {
  await state().forgetter?.(what);
};
