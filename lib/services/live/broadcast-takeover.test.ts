import { describe, expect, test } from 'vitest';
import { resumeMsn } from './broadcast-takeover';
import { mirroredLinesPath } from './live-files';

describe('resumeMsn', () => {
  test('numbers on past every segment the dead node could have made since its last one in the bucket', () => {
    // Last mirrored segment 41 ended 5.2 s ago, 2 s segments: 42, 43 and 44 may have been listed.
    expect(resumeMsn({ lastMsn: 41, lastEndMs: 10_000, now: 15_200, segmentSeconds: 2 })).toBe(45);
    expect(resumeMsn({ lastMsn: 41, lastEndMs: 10_000, now: 10_000, segmentSeconds: 2 })).toBe(42);
    // A clock a little behind the segment's end does not number backwards.
    expect(resumeMsn({ lastMsn: 41, lastEndMs: 10_000, now: 9_000, segmentSeconds: 1 })).toBe(42);
  });
});

describe('mirroredLinesPath', () => {
  test('names the chunks of an index beside it', () => {
    expect(mirroredLinesPath('/data/assets/a/live/c0/segments.jsonl', 3)).toBe('/data/assets/a/live/c0/segments.3.jsonl');
    expect(mirroredLinesPath('/data/assets/a/live/c2/captions.jsonl', 0)).toBe('/data/assets/a/live/c2/captions.0.jsonl');
  });
});
