import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fmp4StreamSplitter, splitFragmentedMp4, spotInitSegment } from './fmp4';
import { readDecodeTimes, readTrackTimescale, shiftDecodeTime } from './fmp4-decode-times';
import { FFMPEG, FFPROBE } from './test-support/media-fixtures';

const run = promisify(execFile);

const VIDEO_MOVFLAGS = '+frag_keyframe+empty_moov+default_base_moof';
const AUDIO_MOVFLAGS = '+frag_keyframe+empty_moov+delay_moov+default_base_moof';

let dir = '';
let original: Buffer = Buffer.alloc(0);

const ffmpegToStdout = async (args: string[]): Promise<Buffer> => {
  // Through a pipe, as in production: ffmpeg cannot seek back and patch what it already wrote.
  const { stdout } = await run(FFMPEG, ['-hide_banner', '-v', 'error', ...args, 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
};

const writeTemp = async (name: string, bytes: Buffer): Promise<string> => {
  const file = join(dir, name);
  await writeFile(file, bytes);
  return file;
};

const ffprobe = async (file: string, entries: string): Promise<string[]> => {
  const { stdout } = await run(FFPROBE, ['-v', 'error', '-select_streams', '0', ...entries.split(' '), '-of', 'csv=p=0', file]);
  return stdout.split('\n').map((line) => line.replace(/,$/, '').trim()).filter(Boolean);
};

const frameCount = async (file: string): Promise<number> =>
  Number((await ffprobe(file, '-count_frames -show_entries stream=nb_read_frames'))[0]);

const packetPts = async (file: string): Promise<bigint[]> =>
  (await ffprobe(file, '-show_entries packet=pts')).map((line) => BigInt(line));

const framePtsTimes = async (file: string): Promise<number[]> =>
  (await ffprobe(file, '-show_entries frame=pts_time')).map(Number);

const decodeErrors = async (file: string): Promise<string> => {
  // execFile rejects on a non-zero exit status, which fails the test with ffmpeg's stderr.
  const { stderr } = await run(FFMPEG, ['-hide_banner', '-v', 'error', '-i', file, '-f', 'null', '-']);
  return stderr;
};

// -- Minimal, independent box helpers: only what the tests need, so that they do not vouch for
// the module with its own code.

const u32 = (value: number): Buffer => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
};
const u64 = (value: bigint): Buffer => {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(value);
  return out;
};
const box = (type: string, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([u32(body.length + 8), Buffer.from(type, 'latin1'), body]);
};
const largeBox = (type: string, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([u32(1), Buffer.from(type, 'latin1'), u64(BigInt(body.length + 16)), body]);
};
const fullBox = (type: string, version: number, flags: number, ...content: Buffer[]): Buffer => {
  const versionFlags = u32(flags);
  versionFlags[0] = version;
  return box(type, versionFlags, ...content);
};

type TestBox = { type: string; start: number; end: number };
const walk = (buf: Buffer, start = 0, end = buf.length): TestBox[] => {
  const boxes: TestBox[] = [];
  for (let at = start; at < end; ) {
    const size = buf.readUInt32BE(at);
    boxes.push({ type: buf.toString('latin1', at + 4, at + 8), start: at, end: at + size });
    at += size;
  }
  return boxes;
};
const types = (buf: Buffer): string[] => walk(buf).map((b) => b.type);
const find = (buf: Buffer, path: string[]): TestBox[] => {
  let level: TestBox[] = [{ type: '', start: -8, end: buf.length }];
  for (const type of path) {
    level = level.flatMap((parent) => walk(buf, parent.start + 8, parent.end)).filter((b) => b.type === type);
  }
  return level;
};
const trunDataOffsets = (fragment: Buffer): number[] =>
  find(fragment, ['moof', 'traf', 'trun']).map((trun) => fragment.readInt32BE(trun.start + 16));
const tfdtVersions = (fragment: Buffer): number[] =>
  find(fragment, ['moof', 'traf', 'tfdt']).map((tfdt) => fragment[tfdt.start + 8] ?? -1);

/** ffmpeg always writes 64-bit tfdt boxes; this makes the 32-bit form the upgrade path starts from. */
const downgradeTfdt = (fragment: Buffer): Buffer => {
  const parts = walk(fragment).map(({ type, start, end }) => {
    if (type !== 'moof') return fragment.subarray(start, end);
    const moofChildren = walk(fragment, start + 8, end).map((child) => {
      if (child.type !== 'traf') return fragment.subarray(child.start, child.end);
      const trafChildren = walk(fragment, child.start + 8, child.end).map((leaf) => {
        if (leaf.type !== 'tfdt') return fragment.subarray(leaf.start, leaf.end);
        expect(fragment[leaf.start + 8]).toBe(1);
        return fullBox('tfdt', 0, 0, u32(Number(fragment.readBigUInt64BE(leaf.start + 12))));
      });
      return box('traf', ...trafChildren);
    });
    const moof = box('moof', ...moofChildren);
    const shrink = end - start - moof.length;
    for (const trun of find(moof, ['moof', 'traf', 'trun'])) {
      moof.writeInt32BE(moof.readInt32BE(trun.start + 16) - shrink, trun.start + 16);
    }
    return moof;
  });
  return Buffer.concat(parts);
};

const feed = (data: Buffer, sizes: () => number): { init: Buffer[]; fragments: Buffer[]; indexes: number[] } => {
  const result = { init: [] as Buffer[], fragments: [] as Buffer[], indexes: [] as number[] };
  const splitter = new Fmp4StreamSplitter({
    onInit: (init) => result.init.push(init),
    onFragment: (fragment, index) => {
      result.fragments.push(fragment);
      result.indexes.push(index);
    },
  });
  for (let at = 0; at < data.length; ) {
    const size = Math.max(1, sizes());
    splitter.push(data.subarray(at, at + size));
    at += size;
  }
  splitter.end();
  return result;
};

// toEqual walks buffers byte by byte, which takes seconds for a few hundred kilobytes.
const expectSameBuffers = (actual: Buffer[], expected: Buffer[], label?: string): void => {
  expect(actual.map((b) => b.length), label).toEqual(expected.map((b) => b.length));
  expect(actual.every((b, i) => expected[i]?.equals(b)), label).toBe(true);
};

// Deterministic, so that a failing chunking can be reproduced.
const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyframe-fmp4-'));
  original = await ffmpegToStdout([
    '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30:duration=3',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-bf', '0', '-g', '30', '-pix_fmt', 'yuv420p',
    '-video_track_timescale', '90000', '-f', 'mp4', '-movflags', VIDEO_MOVFLAGS,
  ]);
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('splitFragmentedMp4 on real ffmpeg output', () => {
  it('yields ftyp+moov and one moof+mdat per keyframe, dropping mfra', async () => {
    expect(types(original)).toEqual(['ftyp', 'moov', 'moof', 'mdat', 'moof', 'mdat', 'moof', 'mdat', 'mfra']);
    const { init, fragments } = splitFragmentedMp4(original);
    expect(types(init)).toEqual(['ftyp', 'moov']);
    expect(init.toString('latin1', 4, 8)).toBe('ftyp');
    expect(fragments).toHaveLength(3);
    for (const fragment of fragments) expect(types(fragment)).toEqual(['moof', 'mdat']);
    const mfra = walk(original).at(-1);
    expect(init.length + fragments.reduce((sum, f) => sum + f.length, 0)).toBe((mfra?.start ?? 0));

    expect(readTrackTimescale(init)).toBe(90_000);
    expect(fragments.map((f) => readDecodeTimes(f))).toEqual([[0n], [90_000n], [180_000n]]);

    const originalFile = await writeTemp('original.mp4', original);
    const rebuilt = await writeTemp('rebuilt.mp4', Buffer.concat([init, ...fragments]));
    const expectedFrames = await frameCount(originalFile);
    expect(expectedFrames).toBe(90);
    expect(await frameCount(rebuilt)).toBe(expectedFrames);
  });

  it('returns copies that do not alias the input', () => {
    const input = Buffer.from(original);
    const { init, fragments } = splitFragmentedMp4(input);
    input.fill(0);
    expect(init.toString('latin1', 4, 8)).toBe('ftyp');
    expect(fragments[0]?.toString('latin1', 4, 8)).toBe('moof');
  });
});

describe('shiftDecodeTime on real ffmpeg output', () => {
  it('moves every frame by the offset', async () => {
    const { init, fragments } = splitFragmentedMp4(original);
    const shifted = fragments.map((fragment) => shiftDecodeTime(fragment, 90_000n * 5n));
    expect(shifted.map((f) => readDecodeTimes(f))).toEqual([[450_000n], [540_000n], [630_000n]]);
    // ffmpeg already writes 64-bit tfdt, so nothing had to grow.
    expect(shifted.map((f) => f.length)).toEqual(fragments.map((f) => f.length));

    const file = await writeTemp('shifted.mp4', Buffer.concat([init, ...shifted]));
    const times = await framePtsTimes(file);
    expect(times).toHaveLength(90);
    expect(times[0]).toBe(5);
    const before = await packetPts(await writeTemp('unshifted.mp4', Buffer.concat([init, ...fragments])));
    expect(await packetPts(file)).toEqual(before.map((pts) => pts + 450_000n));
  });

  it('upgrades a 32-bit tfdt to 64 bits, fixing box sizes and data offsets', async () => {
    const { init, fragments } = splitFragmentedMp4(original);
    const narrow = fragments.map(downgradeTfdt);
    expect(narrow.flatMap(tfdtVersions)).toEqual([0, 0, 0]);
    expect(narrow.map((f) => f.length)).toEqual(fragments.map((f) => f.length - 4));
    // The helper itself must produce a valid file for the upgrade check below to mean anything.
    const narrowFile = await writeTemp('narrow.mp4', Buffer.concat([init, ...narrow]));
    expect(await decodeErrors(narrowFile)).toBe('');
    const before = await packetPts(narrowFile);

    const offset = 2n ** 33n;
    const upgraded = narrow.map((fragment) => shiftDecodeTime(fragment, offset));
    expect(upgraded.flatMap(tfdtVersions)).toEqual([1, 1, 1]);
    expect(upgraded.map((f) => f.length)).toEqual(narrow.map((f) => f.length + 4));
    expect(upgraded.map(trunDataOffsets)).toEqual(narrow.map((f) => trunDataOffsets(f).map((o) => o + 4)));
    expect(upgraded.map((f) => readDecodeTimes(f))).toEqual([[offset], [offset + 90_000n], [offset + 180_000n]]);
    for (const fragment of upgraded) {
      const [moof, mdat] = walk(fragment);
      expect(find(fragment, ['moof', 'traf'])[0]?.end).toBe(moof?.end);
      expect(mdat?.end).toBe(fragment.length);
    }

    const file = await writeTemp('upgraded.mp4', Buffer.concat([init, ...upgraded]));
    expect(await decodeErrors(file)).toBe('');
    expect(await packetPts(file)).toEqual(before.map((pts) => pts + offset));
    const times = await framePtsTimes(file);
    expect(times).toHaveLength(90);
    expect(times[0]).toBeCloseTo(Number(offset) / 90_000, 5);
  });

  it('keeps a 32-bit tfdt when the shifted value still fits', () => {
    const narrow = splitFragmentedMp4(original).fragments.map(downgradeTfdt);
    const shifted = narrow.map((fragment) => shiftDecodeTime(fragment, 1000n));
    expect(shifted.flatMap(tfdtVersions)).toEqual([0, 0, 0]);
    expect(shifted.map((f) => f.length)).toEqual(narrow.map((f) => f.length));
    expect(shifted.map(trunDataOffsets)).toEqual(narrow.map(trunDataOffsets));
    expect(shifted.map((f) => readDecodeTimes(f))).toEqual([[1000n], [91_000n], [181_000n]]);
  });

  it('returns a copy and can shift back', () => {
    const [fragment] = splitFragmentedMp4(original).fragments;
    if (!fragment) throw new Error('no fragment');
    const snapshot = Buffer.from(fragment);
    const there = shiftDecodeTime(fragment, 12_345n);
    expect(fragment.equals(snapshot)).toBe(true);
    expect(shiftDecodeTime(there, -12_345n).equals(fragment)).toBe(true);
    expect(() => shiftDecodeTime(fragment, -1n)).toThrow(RangeError);
  });
});

describe('Fmp4StreamSplitter', () => {
  it('gives the same result as splitFragmentedMp4 for any chunking', () => {
    const expected = splitFragmentedMp4(original);
    const random = seededRandom(42);
    const feeds = {
      '1-byte': () => 1,
      '7-byte': () => 7,
      random: () => Math.floor(random() * 5000),
      'random small': () => Math.floor(random() * 20),
      whole: () => original.length,
    };
    for (const [name, sizes] of Object.entries(feeds)) {
      const result = feed(original, sizes);
      expectSameBuffers(result.init, [expected.init], name);
      expectSameBuffers(result.fragments, expected.fragments, name);
      expect(result.indexes, name).toEqual([0, 1, 2]);
    }
  });

  it('emits each part as soon as its last byte arrives', () => {
    const boxes = walk(original);
    const expectedAt = boxes.filter((b) => b.type === 'moov' || b.type === 'mdat').map((b) => b.end);
    const emittedAt: number[] = [];
    let pushed = 0;
    const splitter = new Fmp4StreamSplitter({
      onInit: () => emittedAt.push(pushed),
      onFragment: () => emittedAt.push(pushed),
    });
    for (const byte of original) {
      pushed++;
      splitter.push(Buffer.of(byte));
    }
    splitter.end();
    expect(emittedAt).toEqual(expectedAt);
  });

  it('splits a live ffmpeg audio stream (delay_moov, frag_duration)', async () => {
    const child = spawn(FFMPEG, [
      '-hide_banner', '-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=10',
      '-c:a', 'aac', '-ac', '2', '-f', 'mp4', '-movflags', AUDIO_MOVFLAGS, '-frag_duration', '4000000', 'pipe:1',
    ], { stdio: ['ignore', 'pipe', 'inherit'] });
    let init: Buffer | undefined;
    const fragments: Buffer[] = [];
    const chunks: Buffer[] = [];
    const splitter = new Fmp4StreamSplitter({
      onInit: (bytes) => {
        init = bytes;
      },
      onFragment: (fragment, index) => {
        expect(index).toBe(fragments.length);
        fragments.push(fragment);
      },
    });
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      splitter.push(chunk);
    });
    const exitCode = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(exitCode).toBe(0);
    splitter.end();

    if (!init) throw new Error('no init segment');
    expect(readTrackTimescale(init)).toBe(48_000);
    expect(fragments.length).toBeGreaterThanOrEqual(3);
    const times = fragments.flatMap((f) => readDecodeTimes(f));
    expect(times[0]).toBe(0n);
    for (let i = 1; i < times.length; i++) {
      const step = Number((times[i] ?? 0n) - (times[i - 1] ?? 0n)) / 48_000;
      expect(step).toBeGreaterThan(3.5);
      expect(step).toBeLessThan(4.5);
    }
    const whole = splitFragmentedMp4(Buffer.concat(chunks));
    expectSameBuffers([whole.init], [init]);
    expectSameBuffers(whole.fragments, fragments);
    expect(await decodeErrors(await writeTemp('audio.mp4', Buffer.concat([init, ...fragments])))).toBe('');
  });

  it('refuses to continue after an error', () => {
    const splitter = new Fmp4StreamSplitter({ onInit: () => {}, onFragment: () => {} });
    expect(() => splitter.push(Buffer.from('definitely not an mp4 file'))).toThrow(/Not a fragmented MP4/);
    expect(() => splitter.push(original)).toThrow(/Not a fragmented MP4/);
    expect(() => splitter.end()).toThrow(/Not a fragmented MP4/);
  });

  it('rejects a stream that ends inside a box', () => {
    const splitter = new Fmp4StreamSplitter({ onInit: () => {}, onFragment: () => {} });
    splitter.push(original.subarray(0, original.length - 50));
    expect(() => splitter.end()).toThrow(/Truncated MP4/);
  });
});

describe('spotInitSegment', () => {
  it('hands out the init once, when its last byte arrives, and ignores the rest', () => {
    const moovEnd = walk(original).find((box) => box.type === 'moov')?.end;
    const spotted: Array<{ at: number; init: Buffer }> = [];
    let pushed = 0;
    const sink = spotInitSegment((init) => spotted.push({ at: pushed, init }));
    for (const byte of original) {
      pushed++;
      sink(Buffer.of(byte));
    }
    expect(spotted.map(({ at }) => at)).toEqual([moovEnd]);
    expect(spotted[0]?.init.equals(splitFragmentedMp4(original).init)).toBe(true);
  });

  it('stays silent, without throwing, on bytes that are not a fragmented MP4', () => {
    const spotted: Buffer[] = [];
    const sink = spotInitSegment((init) => spotted.push(init));
    expect(() => sink(Buffer.from('this is not an mp4 file at all'))).not.toThrow();
    expect(() => sink(original)).not.toThrow();
    expect(spotted).toEqual([]);
  });
});

describe('synthetic fragments', () => {
  const ftyp = box('ftyp', Buffer.from('isom'), u32(512), Buffer.from('isomiso6'));
  const mdhd = (version: 0 | 1, timescale: number): Buffer =>
    version === 0
      ? fullBox('mdhd', 0, 0, u32(0), u32(0), u32(timescale), u32(1000), u32(0))
      : fullBox('mdhd', 1, 0, u64(0n), u64(0n), u32(timescale), u64(1000n), u32(0));
  const moov = (timescale = 1000, version: 0 | 1 = 0): Buffer =>
    box('moov', box('mvhd', Buffer.alloc(100)), box('trak', box('tkhd', Buffer.alloc(84)), box('mdia', mdhd(version, timescale))));
  const trun = (dataOffset: number): Buffer => fullBox('trun', 0, 0x000201, u32(1), u32(dataOffset), u32(4));
  const traf = (tfhdFlags: number, decodeTime: number, dataOffset: number, trackId = 1): Buffer =>
    box('traf', fullBox('tfhd', 0, tfhdFlags, u32(trackId)), fullBox('tfdt', 0, 0, u32(decodeTime)), trun(dataOffset));
  const mfhd = fullBox('mfhd', 0, 0, u32(1));

  it('only touches tfdt boxes inside moof/traf, not look-alikes in media data', () => {
    const fakeTfdt = fullBox('tfdt', 0, 0, u32(7));
    const mdatPayload = Buffer.concat([Buffer.from('xxtfdtxx'), fakeTfdt, Buffer.from('tfdt')]);
    const moof = box('moof', mfhd, traf(0x020000, 100, 0));
    const fragment = Buffer.concat([moof, box('mdat', mdatPayload)]);
    expect(readDecodeTimes(fragment)).toEqual([100n]);

    const shifted = shiftDecodeTime(fragment, 2n ** 32n);
    expect(readDecodeTimes(shifted)).toEqual([2n ** 32n + 100n]);
    expect(shifted.subarray(shifted.length - mdatPayload.length).equals(mdatPayload)).toBe(true);
    expect(shifted.length).toBe(fragment.length + 4);
  });

  it('fixes every moof-relative data offset when several trafs grow', () => {
    const moof = box('moof', mfhd, traf(0x020000, 10, 1000, 1), traf(0x020000, 20, 2000, 2));
    const fragment = Buffer.concat([moof, box('mdat', Buffer.alloc(16))]);
    const shifted = shiftDecodeTime(fragment, 2n ** 32n);
    expect(readDecodeTimes(shifted)).toEqual([2n ** 32n + 10n, 2n ** 32n + 20n]);
    expect(trunDataOffsets(shifted)).toEqual([1008, 2008]);
    expect(types(shifted)).toEqual(['moof', 'mdat']);
    expect(find(shifted, ['moof', 'traf']).map((b) => b.end - b.start)).toEqual(
      find(fragment, ['moof', 'traf']).map((b) => b.end - b.start + 4),
    );
  });

  it('without default-base-is-moof, only the first traf is moof-relative', () => {
    const moof = box('moof', mfhd, traf(0, 10, 1000, 1), traf(0, 20, 50, 2));
    const shifted = shiftDecodeTime(Buffer.concat([moof, box('mdat', Buffer.alloc(16))]), 2n ** 32n);
    expect(trunDataOffsets(shifted)).toEqual([1008, 50]);
  });

  it('refuses to grow a moof whose data offsets are absolute', () => {
    const absolute = box('traf', fullBox('tfhd', 0, 0x000001, u32(1), u64(5000n)), fullBox('tfdt', 0, 0, u32(10)), trun(0));
    const fragment = Buffer.concat([box('moof', mfhd, absolute), box('mdat', Buffer.alloc(4))]);
    expect(() => shiftDecodeTime(fragment, 2n ** 32n)).toThrow(/absolute base_data_offset/);
    expect(readDecodeTimes(shiftDecodeTime(fragment, 5n))).toEqual([15n]);
  });

  it('rejects decode times that leave the 64-bit range', () => {
    const fragment = Buffer.concat([box('moof', mfhd, traf(0x020000, 10, 0)), box('mdat')]);
    expect(() => shiftDecodeTime(fragment, -11n)).toThrow(RangeError);
    expect(() => shiftDecodeTime(fragment, 2n ** 64n)).toThrow(RangeError);
  });

  it('handles 64-bit sizes, size 0 and boxes it should skip', () => {
    const moof = largeBox('moof', mfhd, traf(0x020000, 0, 24));
    const stream = Buffer.concat([
      box('free', Buffer.alloc(3)),
      ftyp,
      largeBox('moov', moov(44_100).subarray(8)),
      box('sidx', Buffer.alloc(20)),
      moof,
      largeBox('mdat', Buffer.from('media1')),
      box('styp', Buffer.from('msdh')),
      box('prft', Buffer.alloc(12)),
      box('moof', mfhd, traf(0x020000, 1, 16)),
      Buffer.concat([u32(0), Buffer.from('mdat'), Buffer.from('media2, to the end')]),
    ]);
    const { init, fragments } = splitFragmentedMp4(stream);
    expect(readTrackTimescale(init)).toBe(44_100);
    expect(fragments).toHaveLength(2);
    expect(fragments[0]?.subarray(-6).toString()).toBe('media1');
    expect(fragments[1]?.subarray(-18).toString()).toBe('media2, to the end');
    expectSameBuffers(feed(stream, () => 1).fragments, fragments);

    const shifted = shiftDecodeTime(fragments[0] ?? Buffer.alloc(0), 2n ** 40n);
    expect(shifted.readUInt32BE(0)).toBe(1);
    expect(Number(shifted.readBigUInt64BE(8))).toBe(moof.length + 4);
    expect(readDecodeTimes(shifted)).toEqual([2n ** 40n]);
    // Where the data offset gets patched depends on the large moof keeping its 16-byte header.
    const trunAt = shifted.indexOf('trun');
    expect(shifted.readInt32BE(trunAt - 4 + 16)).toBe(28);
  });

  it('reads the timescale from a version 1 mdhd', () => {
    expect(readTrackTimescale(Buffer.concat([ftyp, moov(90_000, 1)]))).toBe(90_000);
    expect(() => readTrackTimescale(ftyp)).toThrow(/no moov/);
  });

  it('rejects malformed input with a clear error', () => {
    const fragment = Buffer.concat([box('moof', mfhd, traf(0x020000, 0, 0)), box('mdat', Buffer.alloc(8))]);
    const cases: Array<[string, Buffer, RegExp]> = [
      ['empty', Buffer.alloc(0), /missing ftyp/],
      ['text', Buffer.from('hello, this is certainly not a video file'), /Not a fragmented MP4/],
      ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)), /Not a fragmented MP4/],
      ['box size below 8', Buffer.concat([u32(4), Buffer.from('ftyp')]), /has size 4/],
      ['truncated header', original.subarray(0, 5), /Truncated MP4/],
      ['truncated init', original.subarray(0, 200), /Truncated MP4.*"moov"/],
      ['truncated fragment', original.subarray(0, 5000), /Truncated MP4.*"mdat"/],
      ['no moov', Buffer.concat([ftyp, fragment]), /moof .* before the init segment/],
      ['no ftyp', Buffer.concat([moov(), fragment]), /moov .* without a preceding ftyp/],
      ['only ftyp', ftyp, /missing moov/],
      ['moof without mdat', Buffer.concat([ftyp, moov(), box('moof', mfhd)]), /no following mdat/],
      ['something between moof and mdat', Buffer.concat([ftyp, moov(), box('moof', mfhd), box('free'), box('mdat')]), /followed by "free"/],
      ['plain MP4', Buffer.concat([ftyp, moov(), box('mdat', Buffer.alloc(10))]), /mdat .* outside a fragment/],
      ['second moov', Buffer.concat([ftyp, moov(), moov()]), /second moov/],
      ['box past the end', Buffer.concat([ftyp, u32(1000), Buffer.from('moov'), Buffer.alloc(10)]), /Truncated MP4/],
    ];
    for (const [name, bytes, message] of cases) {
      expect(() => splitFragmentedMp4(bytes), name).toThrow(message);
      expect(() => feed(bytes, () => 3), name).toThrow(message);
    }
    expect(() => shiftDecodeTime(original.subarray(0, 5000), 1n)).toThrow(/runs past the end/);
    expect(() => readDecodeTimes(Buffer.from('garbage garbage'))).toThrow(/runs past the end/);
  });
});
