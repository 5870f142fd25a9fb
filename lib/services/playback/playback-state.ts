import { nodeRuntime } from '../../runtime/node-runtime';

// What a node keeps in memory for playback: the just-in-time encoder (its scheduler, the encodes
// in flight, the viewers' streams and the demand they make, the rendition cache) and the caches
// that let a playback request touch no database and render nothing twice. It is one part of the
// node runtime (lib/runtime/node-runtime.ts), made piece by piece on first use by
// createPlaybackState (create-playback-state.ts).
//
// Each playback module declares the pieces it keeps next to the code that uses them, by adding
// them to PlaybackState from its own file (`declare module './playback-state'`), so this file
// imports nothing of theirs and each of them can reach its piece without an import cycle.

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PlaybackState {}

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    playback: PlaybackState;
  }
}

export const playbackState = (): PlaybackState => nodeRuntime().playback;
