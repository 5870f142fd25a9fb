import { LRUCache } from 'lru-cache';
import { lazyParts } from '../../runtime/lazy-parts';
import { LookupCache } from '../../utils/lookup-cache';
import type { PlaybackState } from './playback-state';
import { createEncoder } from './runtime';

// What a node keeps in memory for playback, piece by piece, each made on first use. Each piece is
// declared (and documented) by the module that uses it, which adds it to PlaybackState (see
// playback-state.ts); the compiler checks that every declared piece is made here. The pieces are
// plain containers, made here with their bounds rather than by those modules, so that building a
// runtime (every CLI command, every unit test file) does not load the whole playback path; only the
// encoder, whose pieces have behaviour, is made by its module (runtime.ts).
export const createPlaybackState = (): PlaybackState =>
  lazyParts<PlaybackState>({
    // Encoding, and what steers it.
    encoder: createEncoder,
    initEncodes: () => new Map(),
    initArrivals: () => new Map(),
    audioEncodes: () => new Map(),
    audioSegmentsWanted: () => new LRUCache({ max: 10_000 }),
    encodeCosts: () => new Map(),
    encodeCostMeasurement: () => ({ started: false }),
    watchedAssets: () => ({ byAsset: new Map(), pruning: { lastAt: 0 } }),
    // Answering requests from memory.
    playbackRecords: () => new LookupCache({ maxEntries: 50_000, ttlMs: 60_000 }),
    renderedPlaylists: () => new LRUCache({ max: 40_000, maxSize: 128 * 1024 * 1024, sizeCalculation: (text) => text.length }),
    publicMultivariants: () => new LRUCache({ max: 50_000 }),
    finishedAudioCounts: () => new LRUCache({ max: 50_000 }),
    subtitlesCues: () =>
      new LRUCache({
        max: 2_000,
        maxSize: 64 * 1024 * 1024,
        sizeCalculation: (cues) => cues.reduce((size, cue) => size + cue.text.length + 64, 64),
      }),
  });
