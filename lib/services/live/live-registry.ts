import { nodeRuntime } from '../../runtime/node-runtime';
import type { Broadcast } from './broadcast';

// Which playback IDs are answered from a broadcast in memory: the live stream's own (a sliding
// window of about 30 s) and its recording asset's (an EVENT playlist from the start: DVR). Kept
// after the broadcast ends (the playlists then carry EXT-X-ENDLIST) until the stream's next
// broadcast, or, for the asset's, until its on-demand version is ready.

export type LivePlaybackEntry = {
  broadcast: Broadcast;
  policy: 'public' | 'signed';
  playlistType: 'sliding' | 'event';
};

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    /** By playback ID. */
    livePlayback: Map<string, LivePlaybackEntry>;
  }
}

export const createLivePlaybackRegistry = (): Map<string, LivePlaybackEntry> => new Map();

const entries = (): Map<string, LivePlaybackEntry> => nodeRuntime().livePlayback;

export const findLivePlayback = (playbackId: string): LivePlaybackEntry | undefined => entries().get(playbackId);

export const registerLivePlayback = (playbackId: string, entry: LivePlaybackEntry): void => {
  entries().set(playbackId, entry);
};

export const unregisterLivePlayback = (playbackId: string, broadcast?: Broadcast): void => {
  if (!broadcast || entries().get(playbackId)?.broadcast === broadcast) entries().delete(playbackId);
};

export const unregisterBroadcast = (broadcast: Broadcast): void => {
  const registry = entries();
  for (const [playbackId, entry] of registry) if (entry.broadcast === broadcast) registry.delete(playbackId);
};
