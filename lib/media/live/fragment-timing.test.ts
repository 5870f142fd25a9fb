import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { splitFragmentedMp4 } from '../fmp4';
import { ffmpeg } from '../test-support/media-fixtures';
import { readFragmentTimings, readInitTracks, readTrackDefaults } from './fragment-timing';
import { probeJson, spsAvc1 } from './live-test-support';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-fragment-timing-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const FRAGMENTED = ['-f', 'mp4', '-movflags', '+frag_keyframe+empty_moov+default_base_moof'];

describe('readInitTracks on ffmpeg output', () => {
  // ffprobe's level and the SPS (read by ffmpeg's trace_headers filter) are independent of the parser under test.
  test.each([
    ['baseline', '3.0', 320, 240],
    ['main', '3.1', 640, 360],
    ['high', '4.0', 1280, 720],
  ])('H.264 %s level %s %dx%d + AAC: codecs, size, channels and rate as ffprobe and the SPS say', async (profile, level, width, height) => {
    const file = path.join(dir, `${profile}.mp4`);
    await ffmpeg(
      '-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}:rate=25:duration=0.4`, '-f', 'lavfi', '-i', 'sine=duration=0.4:sample_rate=44100',
      '-c:v', 'libx264', '-profile:v', profile, '-level:v', level, '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-ac', '1', ...FRAGMENTED, file,
    );
    const { init } = splitFragmentedMp4(await readFile(file));
    const [video, audio] = readInitTracks(init);
    const [probedVideo, probedAudio] = (await probeJson(file, 'stream=codec_type,profile,level,width,height,channels,sample_rate')).streams;

    expect(video).toMatchObject({ trackId: 1, kind: 'video', width: probedVideo?.width, height: probedVideo?.height, codec: await spsAvc1(file) });
    expect(video?.codec.slice(-2)).toBe(Number(probedVideo?.level).toString(16));
    expect(audio).toMatchObject({ trackId: 2, kind: 'audio', timescale: 44100, codec: 'mp4a.40.2', channels: 1, sampleRate: 44100 });
    expect(probedAudio).toMatchObject({ profile: 'LC', channels: 1, sample_rate: '44100' });
  });

  test('audio only, stereo 48 kHz', async () => {
    const file = path.join(dir, 'audio.mp4');
    await ffmpeg('-f', 'lavfi', '-i', 'sine=duration=0.3:sample_rate=48000', '-c:a', 'aac', '-ac', '2', ...FRAGMENTED, file);
    const { init } = splitFragmentedMp4(await readFile(file));
    expect(readInitTracks(init)).toEqual([{ trackId: 1, timescale: 48000, kind: 'audio', codec: 'mp4a.40.2', channels: 2, sampleRate: 48000 }]);
  });
});

describe('readFragmentTimings on ffmpeg output', () => {
  test('decode times, durations and keyframes of a 1 s GOP cut into 0.5 s fragments', async () => {
    const file = path.join(dir, 'gop.mp4');
    await ffmpeg(
      '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30:duration=3', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '30', '-pix_fmt', 'yuv420p',
      '-video_track_timescale', '90000', ...FRAGMENTED, '-frag_duration', '500000', file,
    );
    const { init, fragments } = splitFragmentedMp4(await readFile(file));
    const defaults = readTrackDefaults(init);
    const timings = fragments.map((fragment) => readFragmentTimings(fragment, defaults));
    expect(timings.map((traf) => traf.length)).toEqual(Array(6).fill(1));
    expect(timings.map(([timing]) => [Number(timing?.baseDecodeTime), timing?.durationTicks, timing?.sampleCount, timing?.firstSampleIsSync])).toEqual([
      [0, 45_000, 15, true],
      [45_000, 45_000, 15, false],
      [90_000, 45_000, 15, true],
      [135_000, 45_000, 15, false],
      [180_000, 45_000, 15, true],
      [225_000, 45_000, 15, false],
    ]);
  });
});

// Hand-built boxes for the fields ffmpeg happens not to use (trex fallbacks, per-sample flags,
// several truns, signed composition offsets).
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
const SYNC = 0x0200_0000; // sample_depends_on = 2 (an I-frame), sync

const tfdt = (time: number) => fullBox('tfdt', 1, 0, u32(0), u32(time));
const trex = (trackId: number, duration: number, flags: number) => fullBox('trex', 0, 0, u32(trackId), u32(1), u32(duration), u32(0), u32(flags));
const initWith = (...trexes: Buffer[]) => Buffer.concat([box('ftyp', Buffer.from('isom')), box('moov', box('mvex', ...trexes))]);
const fragmentOf = (...trafs: Buffer[]) => Buffer.concat([box('moof', fullBox('mfhd', 0, 0, u32(1)), ...trafs), box('mdat')]);

describe('readFragmentTimings fallbacks', () => {
  test('durations and flags from trex when neither tfhd nor trun has them', () => {
    const init = initWith(trex(1, 3000, SYNC), trex(2, 1024, NON_SYNC));
    const fragment = fragmentOf(
      box('traf', fullBox('tfhd', 0, 0x02_0000, u32(1)), tfdt(90_000), fullBox('trun', 0, 0, u32(4))),
      box('traf', fullBox('tfhd', 0, 0x02_0000, u32(2)), tfdt(48_000), fullBox('trun', 0, 0, u32(3))),
    );
    expect(readFragmentTimings(fragment, readTrackDefaults(init))).toEqual([
      { trackId: 1, baseDecodeTime: 90_000n, firstPresentationTime: 90_000n, durationTicks: 12_000, sampleCount: 4, firstSampleIsSync: true },
      { trackId: 2, baseDecodeTime: 48_000n, firstPresentationTime: 48_000n, durationTicks: 3072, sampleCount: 3, firstSampleIsSync: false },
    ]);
    expect(() => readFragmentTimings(fragment)).toThrow(/pass readTrackDefaults\(init\)/);
  });

  test('tfhd defaults win over trex; first_sample_flags over the defaults', () => {
    const init = initWith(trex(1, 1, NON_SYNC));
    // tfhd: default-base-is-moof | default_sample_duration | default_sample_flags.
    const tfhd = fullBox('tfhd', 0, 0x02_0000 | 0x08 | 0x20, u32(1), u32(3003), u32(NON_SYNC));
    const withFirstFlags = fragmentOf(box('traf', tfhd, tfdt(0), fullBox('trun', 0, 0x04, u32(2), u32(SYNC))));
    const withoutFirstFlags = fragmentOf(box('traf', tfhd, tfdt(0), fullBox('trun', 0, 0, u32(2))));
    expect(readFragmentTimings(withFirstFlags, readTrackDefaults(init))[0]).toMatchObject({ durationTicks: 6006, firstSampleIsSync: true });
    expect(readFragmentTimings(withoutFirstFlags, readTrackDefaults(init))[0]).toMatchObject({ durationTicks: 6006, firstSampleIsSync: false });
  });

  test('per-sample durations, sizes, flags and signed composition offsets; several truns add up', () => {
    // trun v1: data_offset | duration | size | flags | composition offset per sample.
    const trunFlags = 0x01 | 0x100 | 0x200 | 0x400 | 0x800;
    const first = fullBox('trun', 1, trunFlags, u32(2), u32(0), u32(3000), u32(10), u32(NON_SYNC), u32(-1500), u32(3000), u32(10), u32(SYNC), u32(0));
    const second = fullBox('trun', 1, 0x100, u32(1), u32(2000));
    const fragment = fragmentOf(box('traf', fullBox('tfhd', 0, 0x02_0000, u32(7)), tfdt(6000), first, second));
    expect(readFragmentTimings(fragment)).toEqual([
      { trackId: 7, baseDecodeTime: 6000n, firstPresentationTime: 4500n, durationTicks: 8000, sampleCount: 3, firstSampleIsSync: false },
    ]);
  });

  test('a trun shorter than its sample count says is an error, not a short read', () => {
    const fragment = fragmentOf(box('traf', fullBox('tfhd', 0, 0, u32(1)), tfdt(0), fullBox('trun', 0, 0x100, u32(5), u32(3000))));
    expect(() => readFragmentTimings(fragment)).toThrow(/"trun" box at offset \d+ is too short/);
  });
});
