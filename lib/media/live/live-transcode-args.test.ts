import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runProcess } from '../run-process';
import { aac, ffmpeg, FFMPEG, FFPROBE } from '../test-support/media-fixtures';
import { readFragmentTimings, readInitTracks, readTrackDefaults, type FragmentTiming } from './fragment-timing';
import { planLiveLadder, type LiveRung } from './live-ladder';
import { LiveSegmenter, type LiveSegmenterEvent } from './live-segmenter';
import { decodeErrors, probeJson, runLivePackager, spsAvc1, type RungOutput } from './live-test-support';
import { liveTranscodeArgs, recordingRemuxArgs, renderConcatList } from './live-transcode-args';
import { ChildProcessSet } from '../child-process-set';

const children = new ChildProcessSet();

const valueAfter = (args: string[], flag: string, from = 0) => args[args.indexOf(flag, from) + 1];
const FRAGMENT_SECONDS = 0.5;
const FRAME = 1 / 30;

const sourceInfo = { video: { codec: 'h264', width: 1280, height: 720, frameRate: 30 }, audio: { codec: 'aac', sampleRate: 48000, channels: 2 } };
const twoRungs = planLiveLadder(sourceInfo, { maxEncodedRungs: 1, audioOnly: false });

describe('liveTranscodeArgs', () => {
  const threeRungs = planLiveLadder({ ...sourceInfo, video: { ...sourceInfo.video, width: 1920, height: 1080 } }, { maxEncodedRungs: 2, audioOnly: false });
  const { args, outputFds } = liveTranscodeArgs({ inputUrl: 'rtmp://127.0.0.1:1935/app/KEY', rungs: threeRungs, fragmentSeconds: 0.5, preset: 'superfast', audioCodec: 'copy' });
  const outputs = outputFds.map((fd) => args.indexOf(`pipe:${fd}`));
  const outputArgs = (index: number) => args.slice(index === 0 ? args.indexOf('-filter_complex') + 2 : outputs[index - 1]! + 1, outputs[index]! + 1);

  test('one input, read with its own timestamps; progress on stdout once a second', () => {
    expect(args.filter((arg) => arg === '-i')).toHaveLength(1);
    expect(args.indexOf('-copyts')).toBeLessThan(args.indexOf('-i'));
    expect(valueAfter(args, '-progress')).toBe('pipe:1');
    expect(valueAfter(args, '-stats_period')).toBe('1');
    expect(args).toContain('-nostdin');
  });

  test('output i on pipe:3+i, each a fragmented MP4 with the source audio copied in', () => {
    expect(outputFds).toEqual([3, 4, 5]);
    expect(outputs.every((index) => index > 0)).toBe(true);
    for (const index of [0, 1, 2]) {
      const output = outputArgs(index);
      expect(output.join(' ')).toContain('-map 0:a:0? -c:a copy');
      expect(valueAfter(output, '-movflags')).toBe('+frag_keyframe+empty_moov+default_base_moof+frag_discont+negative_cts_offsets');
      expect(valueAfter(output, '-frag_duration')).toBe('500000');
      expect(valueAfter(output, '-video_track_timescale')).toBe('90000');
    }
  });

  test('the source rung is copied; the encoded ones come from one split, keyframes where the source has them', () => {
    expect(valueAfter(args, '-filter_complex')).toBe(
      '[0:v:0]split=2[split0][split1];[split0]scale=1280:720,format=yuv420p[video0];[split1]scale=640:360,format=yuv420p[video1]',
    );
    expect(outputArgs(0).join(' ')).toContain('-map 0:v:0 -c:v copy');
    const hd = outputArgs(1);
    expect(valueAfter(hd, '-map')).toBe('[video0]');
    expect(valueAfter(hd, '-c:v')).toBe('libx264');
    expect(valueAfter(hd, '-preset')).toBe('superfast');
    expect(valueAfter(hd, '-tune')).toBe('zerolatency');
    expect(valueAfter(hd, '-force_key_frames')).toBe('source');
    expect(valueAfter(hd, '-sc_threshold')).toBe('0');
    expect(valueAfter(hd, '-bf')).toBe('0');
    expect(valueAfter(hd, '-b:v')).toBe('3000000');
    expect(valueAfter(outputArgs(2), '-map')).toBe('[video1]');
  });

  test('audio only: no video, no filter graph; AAC re-encoded when asked', () => {
    const audioOnly = liveTranscodeArgs({ inputUrl: 'x', rungs: [{ name: 'audio', kind: 'audio-only' }], fragmentSeconds: 1, preset: 'superfast', audioCodec: 'aac' });
    expect(audioOnly.outputFds).toEqual([3]);
    expect(audioOnly.args).not.toContain('-filter_complex');
    expect(audioOnly.args.join(' ')).toContain('-map 0:a:0 -vn -c:a aac -b:a 128k -ar 48000 -ac 2');
    expect(valueAfter(audioOnly.args, '-frag_duration')).toBe('1000000');
  });

  test('the captions feed: the first audio as 16 kHz mono PCM on its own pipe, after the rungs', () => {
    const withSpeech = liveTranscodeArgs({ inputUrl: 'x', rungs: twoRungs, fragmentSeconds: 1, preset: 'superfast', audioCodec: 'copy', speechFd: 5 });
    expect(withSpeech.outputFds).toEqual([3, 4]);
    expect(withSpeech.args.slice(withSpeech.args.indexOf('pipe:4') + 1).join(' ')).toBe(
      '-map 0:a:0 -vn -af aresample=16000:async=1 -ac 1 -ar 16000 -c:a pcm_s16le -f s16le pipe:5',
    );
    expect(() => liveTranscodeArgs({ inputUrl: 'x', rungs: twoRungs, fragmentSeconds: 1, preset: 'superfast', audioCodec: 'copy', speechFd: 4 })).toThrow();
  });

  test('refuses an empty ladder and a non-positive fragment duration', () => {
    expect(() => liveTranscodeArgs({ inputUrl: 'x', rungs: [], fragmentSeconds: 1, preset: 'superfast', audioCodec: 'copy' })).toThrow();
    expect(() => liveTranscodeArgs({ inputUrl: 'x', rungs: twoRungs, fragmentSeconds: 0, preset: 'superfast', audioCodec: 'copy' })).toThrow(RangeError);
  });
});

describe('renderConcatList', () => {
  test('one quoted file line and its duration per piece, single quotes escaped', () => {
    expect(
      renderConcatList([
        { path: '/data/a/0.mp4', durationSeconds: 12 },
        { path: "/data/it's/1.mp4", durationSeconds: 2.5 },
      ]),
    ).toBe("ffconcat version 1.0\nfile '/data/a/0.mp4'\nduration 12.000000\nfile '/data/it'\\''s/1.mp4'\nduration 2.500000\n");
  });
});

// -- With real ffmpeg: a 6 s 720p30 publisher stand-in (H.264 with a 1 s GOP + AAC in FLV, as RTMP
// carries it) through the 2-rung ladder, the way the runtime reads it.

let dir: string;
let plainSource: string;
let bFrameSource: string;

const makeSource = async (file: string, seconds: number, extra: string[] = []) => {
  await ffmpeg(
    '-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=30:duration=${seconds}`, '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}:sample_rate=48000`,
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', '30', '-keyint_min', '30', '-sc_threshold', '0', ...extra, ...aac, '-f', 'flv', file,
  );
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-live-'));
  plainSource = path.join(dir, 'plain.flv');
  bFrameSource = path.join(dir, 'bframes.flv');
  await Promise.all([makeSource(plainSource, 6, ['-bf', '0']), makeSource(bFrameSource, 6)]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const packageLive = async (inputUrl: string, rungs: LiveRung[] = twoRungs) => {
  const { args, outputFds } = liveTranscodeArgs({ inputUrl, rungs, fragmentSeconds: FRAGMENT_SECONDS, preset: 'superfast', audioCodec: 'copy' });
  return runLivePackager(args, outputFds);
};

// Several tests look at the same run of the plain source; one ffmpeg run is enough for them.
let plainRun: ReturnType<typeof packageLive> | undefined;
const packagePlainSource = () => (plainRun ??= packageLive(plainSource));

const videoTimings = (rung: RungOutput): FragmentTiming[] => {
  const [video] = readInitTracks(rung.init);
  const defaults = readTrackDefaults(rung.init);
  // A fragment may hold audio alone (the audio that outlasts the last video frame).
  return rung.fragments.flatMap((fragment) => readFragmentTimings(fragment, defaults).filter((timing) => timing.trackId === video?.trackId));
};

const topLevelBoxTypes = (bytes: Buffer): string[] => {
  const types: string[] = [];
  for (let at = 0; at + 8 <= bytes.length; at += bytes.readUInt32BE(at)) types.push(bytes.toString('latin1', at + 4, at + 8));
  return types;
};

const writeRung = async (name: string, init: Buffer, media: Buffer[]) => {
  const file = path.join(dir, name);
  await writeFile(file, Buffer.concat([init, ...media]));
  return file;
};

describe('the live packager on a 6 s source', () => {
  test('init segments: codecs as ffprobe and the SPS say, sizes of the ladder, AAC in every rung', async () => {
    const { rungs } = await packagePlainSource();
    expect(rungs).toHaveLength(2);
    for (const [index, rung] of rungs.entries()) {
      const file = await writeRung(`rung${index}.mp4`, rung.init, rung.fragments);
      const [video, audio] = readInitTracks(rung.init);
      const [probedVideo, probedAudio] = (await probeJson(file, 'stream=codec_type,profile,level,width,height,channels,sample_rate')).streams;
      expect(video).toMatchObject({ kind: 'video', timescale: 90_000, codec: await spsAvc1(file), width: probedVideo?.width, height: probedVideo?.height });
      expect(Number.parseInt(video!.codec.slice(-2), 16)).toBe(probedVideo?.level);
      expect(audio).toMatchObject({ kind: 'audio', codec: 'mp4a.40.2', channels: probedAudio?.channels, sampleRate: Number(probedAudio?.sample_rate) });
    }
    expect(readInitTracks(rungs[0]!.init)[0]?.codec).toBe(await spsAvc1(plainSource));
    expect(readInitTracks(rungs[0]!.init)[0]).toMatchObject({ width: 1280, height: 720 });
    expect(readInitTracks(rungs[1]!.init)[0]).toMatchObject({ width: 640, height: 360 });
  });

  test('fragments of ≤ 0.5 s, a keyframe opening one every second, at the same instants in both rungs', async () => {
    const { rungs, progress } = await packagePlainSource();
    const [source, encoded] = rungs.map(videoTimings);
    for (const timings of [source!, encoded!]) {
      const durations = timings.map((timing) => timing.durationTicks / 90_000);
      expect(durations.reduce((sum, duration) => sum + duration, 0)).toBeCloseTo(6, 1);
      expect(Math.max(...durations)).toBeLessThanOrEqual(FRAGMENT_SECONDS + FRAME / 2);
      // Only the last fragment may be short: a 1 s GOP is two 0.5 s fragments.
      expect(durations.slice(0, -1).every((duration) => Math.abs(duration - FRAGMENT_SECONDS) < FRAME / 2)).toBe(true);
      expect(timings.filter((timing) => timing.firstSampleIsSync)).toHaveLength(6);
    }
    const keyframeTimes = (timings: FragmentTiming[]) => timings.filter((timing) => timing.firstSampleIsSync).map((timing) => timing.baseDecodeTime);
    expect(keyframeTimes(encoded!)).toEqual(keyframeTimes(source!));
    expect(progress).toMatch(/speed=\s*[\d.]+x/);
    expect(progress.trimEnd().endsWith('progress=end')).toBe(true);
  });

  test('a publisher using B-frames: the rungs still switch at the same presentation times', async () => {
    const { rungs } = await packageLive(bFrameSource);
    const [source, encoded] = rungs.map(videoTimings);
    const keyframeTimes = (timings: FragmentTiming[]) => timings.filter((timing) => timing.firstSampleIsSync).map((timing) => timing.firstPresentationTime);
    expect(keyframeTimes(source!)).toHaveLength(6);
    expect(keyframeTimes(encoded!)).toEqual(keyframeTimes(source!));
    // With signed composition offsets a keyframe is decoded where it is shown, B-frames or not:
    // hls.js lines connections up by decode time (see fragmentedMp4Args).
    for (const timings of [source!, encoded!]) {
      const keyframes = timings.filter((timing) => timing.firstSampleIsSync);
      expect(keyframes.map((timing) => timing.firstPresentationTime - timing.baseDecodeTime)).toEqual(keyframes.map(() => 0n));
    }
  });

  test('segmented at 2 s: whole GOPs, independent first parts, and the segments play back to back', async () => {
    const { rungs } = await packagePlainSource();
    for (const [index, rung] of rungs.entries()) {
      const segmenter = new LiveSegmenter({ init: rung.init, targetSegmentSeconds: 2, firstMsn: 5 });
      const events: LiveSegmenterEvent[] = [...rung.fragments.flatMap((fragment) => segmenter.push(fragment)), ...segmenter.finish()];
      const segments = events.filter((event) => event.type === 'segment');
      const parts = events.filter((event) => event.type === 'part');
      expect(parts).toHaveLength(rung.fragments.length);
      expect(segments.map((segment) => segment.msn)).toEqual([5, 6, 7]);
      for (const segment of segments) {
        expect(segment.durationSeconds).toBeCloseTo(2, 2);
        expect(segment.parts).toHaveLength(4);
        expect(segment.parts[0]?.independent).toBe(true);
        expect(segment.parts.slice(1).some((part) => part.independent)).toBe(true);
        expect(segment.bytes.equals(Buffer.concat(segment.parts.map((part) => part.bytes)))).toBe(true);
      }
      expect(segments.map((segment) => segment.startSeconds)).toEqual(segments.map((_, n) => expect.closeTo(segments[0]!.startSeconds + 2 * n, 3)));
      const file = await writeRung(`segments${index}.mp4`, rung.init, segments.map((segment) => segment.bytes));
      const probed = await probeJson(file, 'format=duration');
      expect(Number(probed.format?.duration)).toBeCloseTo(6, 1);
      expect(await decodeErrors(file)).toBe('');
    }
  });

  test('the captions feed carries the whole audio as 16 kHz mono PCM beside the rungs', async () => {
    const { args, outputFds } = liveTranscodeArgs({ inputUrl: plainSource, rungs: twoRungs, fragmentSeconds: FRAGMENT_SECONDS, preset: 'superfast', audioCodec: 'copy', speechFd: 5 });
    const { rungs, raw } = await runLivePackager(args, outputFds, { rawFd: 5 });
    expect(rungs.every((rung) => rung.fragments.length > 0)).toBe(true);
    // 6 s of 16-bit samples at 16 kHz (AAC's priming and padding may add a frame or two).
    expect(raw.length / 32_000).toBeGreaterThan(5.9);
    expect(raw.length / 32_000).toBeLessThan(6.2);
    // The 440 Hz sine: loud, not silence.
    const samples = Array.from({ length: 1000 }, (_, index) => Math.abs(raw.readInt16LE(32_000 + index * 2)));
    expect(Math.max(...samples)).toBeGreaterThan(1000);
  });

  test('audio only: one AAC track, segments cut on fragment boundaries', async () => {
    const { rungs } = await packageLive(plainSource, [{ name: 'audio', kind: 'audio-only' }]);
    const [audio] = rungs;
    expect(readInitTracks(audio!.init)).toEqual([{ trackId: 1, timescale: 48000, kind: 'audio', codec: 'mp4a.40.2', channels: 2, sampleRate: 48000 }]);
    const segmenter = new LiveSegmenter({ init: audio!.init, targetSegmentSeconds: 2, firstMsn: 0 });
    const segments = [...audio!.fragments.flatMap((fragment) => segmenter.push(fragment)), ...segmenter.finish()].filter((event) => event.type === 'segment');
    expect(segments.length).toBeGreaterThanOrEqual(2);
    // At least the target, and less than one fragment (0.5 s of AAC frames) beyond it.
    for (const segment of segments.slice(0, -1)) expect(segment.durationSeconds).toBeGreaterThanOrEqual(2 - 1024 / 48000 / 2);
    for (const segment of segments.slice(0, -1)) expect(segment.durationSeconds).toBeLessThan(2 + FRAGMENT_SECONDS + 0.05);
    expect(segments.every((segment) => segment.parts.every((part) => part.independent))).toBe(true);
    const total = segments.reduce((sum, segment) => sum + segment.durationSeconds, 0);
    expect(total).toBeCloseTo(6, 1);
  });
});

describe('recordingRemuxArgs', () => {
  test('a connection whose clock read 20 s, then one from 0: one 6 s MP4 with no gap, moov first', async () => {
    const late = path.join(dir, 'late.flv');
    const early = path.join(dir, 'early.flv');
    await Promise.all([makeSource(late, 3, ['-output_ts_offset', '20']), makeSource(early, 3)]);
    const copyOnly: LiveRung[] = [{ name: 'source', kind: 'copy' }];
    const pieces = [];
    // As the runtime keeps them: per connection, the init and the segments, with their durations.
    for (const [index, input] of [late, early].entries()) {
      const [rung] = (await packageLive(input, copyOnly)).rungs;
      const segmenter = new LiveSegmenter({ init: rung!.init, targetSegmentSeconds: 2, firstMsn: 0 });
      const segments = [...rung!.fragments.flatMap((fragment) => segmenter.push(fragment)), ...segmenter.finish()].filter((event) => event.type === 'segment');
      const durationSeconds = segments.reduce((sum, segment) => sum + segment.durationSeconds, 0);
      pieces.push({ path: await writeRung(`piece${index}.mp4`, rung!.init, segments.map((segment) => segment.bytes)), durationSeconds });
    }
    const listFile = path.join(dir, 'pieces.ffconcat');
    await writeFile(listFile, renderConcatList(pieces));
    const output = path.join(dir, 'recording.mp4');
    const result = await runProcess({ command: FFMPEG, args: recordingRemuxArgs({ listFile, output }), children });
    expect(result.exitCode, result.stderr).toBe(0);

    const probed = await probeJson(output, 'format=duration:stream=codec_type,duration');
    // Each source runs 3.07 s (its audio starts 46 ms before its video and ends after it).
    expect(Math.abs(Number(probed.format?.duration) - 6)).toBeLessThan(0.2);
    expect(probed.streams.map((stream) => stream.codec_type)).toEqual(['video', 'audio']);
    expect(await decodeErrors(output)).toBe('');
    for (const stream of ['v', 'a']) {
      const { stdout } = await runProcess({ command: FFPROBE, args: ['-v', 'error', '-select_streams', stream, '-show_entries', 'packet=pts_time', '-of', 'csv=p=0', output], children });
      const times = stdout.trim().split('\n').map(Number).sort((a, b) => a - b);
      const largestStep = Math.max(...times.slice(1).map((time, index) => time - times[index]!));
      // A frame or so at the seam, never the 20 s the first connection's clock was ahead.
      expect(largestStep, stream).toBeLessThan(0.1);
    }
    const types = topLevelBoxTypes(await readFile(output));
    expect(types.indexOf('moov')).toBeLessThan(types.indexOf('mdat'));
  });
});
