import { describe, expect, test } from 'vitest';
import { compareTrackKinds, compareTracks } from './track';

// One order for tracks everywhere: the asset's JSON, the multivariant playlist's groups, the asset page.

describe('compareTrackKinds', () => {
  test('video, the primary audio, other audio, text', () => {
    const tracks = [
      { id: 'subs', type: 'text' },
      { id: 'other', type: 'audio', primary: false },
      { id: 'video', type: 'video' },
      { id: 'main', type: 'audio', primary: true },
    ];
    expect([...tracks].sort(compareTrackKinds).map((track) => track.id)).toEqual(['video', 'main', 'other', 'subs']);
  });

  test('tracks of one kind keep the order they came in', () => {
    const tracks = [
      { id: 'text-b', type: 'text' },
      { id: 'audio-z', type: 'audio', primary: false },
      { id: 'text-a', type: 'text' },
      { id: 'audio-y', type: 'audio', primary: false },
    ];
    expect([...tracks].sort(compareTrackKinds).map((track) => track.id)).toEqual(['audio-z', 'audio-y', 'text-b', 'text-a']);
  });
});

describe('compareTracks', () => {
  const row = (id: string, extra: Partial<{ type: string; primary: boolean; sourceStreamIndex: number | null; createdAt: Date }>) => ({
    id,
    type: 'audio',
    primary: false,
    sourceStreamIndex: null,
    createdAt: new Date(1000),
    ...extra,
  });

  test('kinds first, then source streams, creation, id', () => {
    const tracks = [
      row('text', { type: 'text', createdAt: new Date(0) }),
      row('b-added', {}),
      row('a-added', {}),
      row('stream-2', { sourceStreamIndex: 2 }),
      row('main', { primary: true, sourceStreamIndex: 0 }),
      row('early-added', { createdAt: new Date(500) }),
    ];
    expect([...tracks].sort(compareTracks).map((track) => track.id)).toEqual(['main', 'stream-2', 'early-added', 'a-added', 'b-added', 'text']);
  });
});
