import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { splitFragmentedMp4 } from '../fmp4';
import { ffmpeg } from '../test-support/media-fixtures';
import { readInitTracks } from './fragment-timing';
import { LiveSegmenter, type LiveSegmenterEvent } from './live-segmenter';

// The cut rule on hand-built fragments (exact timings, GOPs the encoder would not make), read with
// a real init segment from ffmpeg: video at 90 kHz as track 1, AAC at 48 kHz as track 2. The
// packager-level behaviour on real media is in live-transcode-args.test.ts.

let dir: string;
let avInit: Buffer;
let audioInit: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-segmenter-'));
  const fragmented = ['-f', 'mp4', '-movflags', '+frag_keyframe+empty_moov+default_base_moof'];
  const av = path.join(dir, 'av.mp4');
  const audio = path.join(dir, 'audio.mp4');
  await ffmpeg(
    '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=30:duration=0.2', '-f', 'lavfi', '-i', 'sine=duration=0.2:sample_rate=48000',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-video_track_timescale', '90000', ...fragmented, av,
  );
  await ffmpeg('-f', 'lavfi', '-i', 'sine=duration=0.2:sample_rate=48000', '-c:a', 'aac', ...fragmented, audio);
  avInit = splitFragmentedMp4(await readFile(av)).init;
  audioInit = splitFragmentedMp4(await readFile(audio)).init;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const u32 = (value: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out;
};
const box = (type: string, ...content: Buffer[]) => {
  const body = Buffer.concat(content);
  return Buffer.concat([u32(body.length + 8), Buffer.from(type, 'latin1'), body]);
};
const fullBox = (type: string, version: number, flags: number, ...content: Buffer[]) => box(type, u32(((version << 24) | flags) >>> 0), ...content);

const NON_SYNC = 0x0001_0000;
type Run = { trackId: number; start: number; samples: number; sampleTicks: number; keyframe: boolean };
// One traf per run: tfhd with a default duration, tfdt, and a trun with first_sample_flags.
const traf = ({ trackId, start, samples, sampleTicks, keyframe }: Run) =>
  box(
    'traf',
    fullBox('tfhd', 0, 0x02_0000 | 0x08 | 0x20, u32(trackId), u32(sampleTicks), u32(NON_SYNC)),
    fullBox('tfdt', 1, 0, u32(0), u32(start)),
    fullBox('trun', 0, 0x04, u32(samples), u32(keyframe ? 0 : NON_SYNC)),
  );
const fragment = (...runs: Run[]) => Buffer.concat([box('moof', fullBox('mfhd', 0, 0, u32(1)), ...runs.map(traf)), box('mdat')]);

const VIDEO_FRAME = 3000; // 30 fps at 90 kHz
const AAC_FRAME = 1024;

/** A 30 fps stream cut into fragments of `framesPerFragment`, a keyframe every `gopFrames`, AAC alongside. */
const videoFragments = (count: number, framesPerFragment: number, gopFrames: number) =>
  Array.from({ length: count }, (_, index) => {
    const firstFrame = index * framesPerFragment;
    const start = firstFrame * VIDEO_FRAME;
    return fragment(
      { trackId: 1, start, samples: framesPerFragment, sampleTicks: VIDEO_FRAME, keyframe: firstFrame % gopFrames === 0 },
      { trackId: 2, start: Math.round((start / 90_000) * 48_000), samples: 23, sampleTicks: AAC_FRAME, keyframe: true },
    );
  });

const feed = (segmenter: LiveSegmenter, fragments: Buffer[]): LiveSegmenterEvent[] => [...fragments.flatMap((f) => segmenter.push(f)), ...segmenter.finish()];
const segmentsOf = (events: LiveSegmenterEvent[]) => events.flatMap((event) => (event.type === 'segment' ? [event] : []));

describe('LiveSegmenter', () => {
  test('init tracks: video is the timed track when there is one, audio otherwise', () => {
    expect(readInitTracks(avInit).map((track) => track.kind)).toEqual(['video', 'audio']);
    expect(new LiveSegmenter({ init: avInit, targetSegmentSeconds: 2, firstMsn: 0 }).timedTrack.kind).toBe('video');
    expect(new LiveSegmenter({ init: audioInit, targetSegmentSeconds: 2, firstMsn: 0 }).timedTrack.kind).toBe('audio');
  });

  test('every fragment is a part as it arrives; a segment closes just before the keyframe that follows 2 s', () => {
    const segmenter = new LiveSegmenter({ init: avInit, targetSegmentSeconds: 2, firstMsn: 40 });
    const fragments = videoFragments(9, 15, 30); // 0.5 s parts, 1 s GOP, 4.5 s
    const perPush = fragments.map((f) => segmenter.push(f));
    expect(perPush.map((events) => events.map((event) => (event.type === 'part' ? `p${event.msn}.${event.partIndex}` : `s${event.msn}`)))).toEqual([
      ['p40.0'], ['p40.1'], ['p40.2'], ['p40.3'], ['s40', 'p41.0'], ['p41.1'], ['p41.2'], ['p41.3'], ['s41', 'p42.0'],
    ]);
    const [first] = segmentsOf(perPush.flat());
    expect(first).toMatchObject({ msn: 40, startSeconds: 0, durationSeconds: 2 });
    expect(first?.parts.map((part) => [part.durationSeconds, part.independent])).toEqual([[0.5, true], [0.5, false], [0.5, true], [0.5, false]]);
    expect(first?.bytes.equals(Buffer.concat(fragments.slice(0, 4)))).toBe(true);
    const [last] = segmentsOf(segmenter.finish());
    expect(last).toMatchObject({ msn: 42, startSeconds: 4, durationSeconds: 0.5 });
    expect(segmenter.finish()).toEqual([]);
  });

  test('a GOP longer than the target: segments as long as the GOP', () => {
    const segments = segmentsOf(feed(new LiveSegmenter({ init: avInit, targetSegmentSeconds: 2, firstMsn: 0 }), videoFragments(12, 15, 90)));
    expect(segments.map((segment) => segment.durationSeconds)).toEqual([3, 3]);
    expect(segments.every((segment) => segment.parts[0]?.independent)).toBe(true);
  });

  test('a GOP a few ticks short of the target (timestamp rounding) still cuts there, not a GOP later', () => {
    const short = (start: number, keyframe: boolean, frames: number, lastFrameTicks = VIDEO_FRAME) =>
      fragment({ trackId: 1, start, samples: frames, sampleTicks: lastFrameTicks, keyframe });
    // 2 s GOPs of 60 frames whose frames are 2999 ticks: 179 940 ticks, 60 short of 2 s.
    const gop = 60 * 2999;
    const fragments = [short(0, true, 60, 2999), short(gop, true, 60, 2999), short(2 * gop, true, 60, 2999)];
    const segments = segmentsOf(feed(new LiveSegmenter({ init: avInit, targetSegmentSeconds: 2, firstMsn: 0 }), fragments));
    expect(segments.map((segment) => segment.parts.length)).toEqual([1, 1, 1]);
    // A whole frame short is not rounding: the GOP is 59 frames and waits for the next keyframe.
    const tooShort = [short(0, true, 59), short(59 * VIDEO_FRAME, true, 59), short(118 * VIDEO_FRAME, true, 59)];
    expect(segmentsOf(feed(new LiveSegmenter({ init: avInit, targetSegmentSeconds: 2, firstMsn: 0 }), tooShort)).map((s) => s.parts.length)).toEqual([2, 1]);
  });

  test('audio only: any fragment boundary once the target is reached', () => {
    const audioFragment = (index: number) =>
      fragment({ trackId: 1, start: index * 24 * AAC_FRAME, samples: 24, sampleTicks: AAC_FRAME, keyframe: true });
    const segments = segmentsOf(feed(new LiveSegmenter({ init: audioInit, targetSegmentSeconds: 2, firstMsn: 0 }), Array.from({ length: 10 }, (_, i) => audioFragment(i))));
    // 24 AAC frames are 0.512 s: four make 2.048 s ≥ 2 s.
    expect(segments.map((segment) => segment.parts.length)).toEqual([4, 4, 2]);
    expect(segments[0]?.durationSeconds).toBeCloseTo(2.048, 6);
    expect(segments[1]?.startSeconds).toBeCloseTo(2.048, 6);
    expect(segments.flatMap((segment) => segment.parts).every((part) => part.independent)).toBe(true);
  });

  test('a fragment holding audio alone counts for its audio time, is not independent, and never cuts', () => {
    const audioAhead = fragment({ trackId: 2, start: 0, samples: 12, sampleTicks: AAC_FRAME, keyframe: true });
    const events = feed(new LiveSegmenter({ init: avInit, targetSegmentSeconds: 2, firstMsn: 0 }), [audioAhead, ...videoFragments(4, 15, 30)]);
    const [segment] = segmentsOf(events);
    expect(segment?.parts.map((part) => part.independent)).toEqual([false, true, false, true, false]);
    expect(segment?.parts[0]?.durationSeconds).toBeCloseTo(0.256, 4);
    expect(segment?.startSeconds).toBe(0);
    expect(segment?.durationSeconds).toBeCloseTo(2.256, 4);
  });

  test('refuses a target that is not positive', () => {
    expect(() => new LiveSegmenter({ init: avInit, targetSegmentSeconds: 0, firstMsn: 0 })).toThrow(RangeError);
  });
});
