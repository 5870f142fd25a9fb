import type { LRUCache } from 'lru-cache';
import { playbackState } from './playback-state';

// Playlists are functions of an asset's plan (plus the proof their URLs carry and, for the
// multivariant one, the rungs listed), so each distinct one is rendered once and then handed over
// as the same string: a player polling playlists costs no string building, and the HTTP layer can
// keep the encoded bytes and ETag of that string.

declare module './playback-state' {
  interface PlaybackState {
    renderedPlaylists: LRUCache<string, string>;
  }
}

const rendered = () => playbackState().renderedPlaylists;

/** A playlist already rendered under `key`, else undefined. */
export const peekRendered = (key: string): string | undefined => rendered().get(key);

export const renderOnce = (key: string, render: () => string): string => {
  let text = rendered().get(key);
  if (text === undefined) {
    text = render();
    rendered().set(key, text);
  }
  return text;
};
