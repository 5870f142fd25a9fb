import { LRUCache } from 'lru-cache';
import { processSingleton } from '../../utils/process-singleton';

// Playlists are functions of an asset's plan (plus the proof their URLs carry and, for the
// multivariant one, the rungs listed), so each distinct one is rendered once and then handed over
// as the same string: a player polling playlists costs no string building, and the HTTP layer can
// keep the encoded bytes and ETag of that string.

const rendered = () =>
  processSingleton(
    'rendered-playlists',
    () => new LRUCache<string, string>({ max: 40_000, maxSize: 128 * 1024 * 1024, sizeCalculation: (text) => text.length }),
  );

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
