import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ChildProcessSet } from '../child-process-set';
import { runProcess } from '../run-process';
import { ffmpeg, FFMPEG } from '../test-support/media-fixtures';
import { readFragmentTimings, readInitTracks, readTrackDefaults } from './fragment-timing';
import { planLiveLadder } from './live-ladder';
import { decodeErrors, probeJson, runLivePackager } from './live-test-support';
import { liveSlateArgs, type SlateTranscodeInput } from './slate-args';

const source = { video: { codec: 'h264', width: 1280, height: 720, frameRate: 30 }, audio: { codec: 'aac', sampleRate: 44100, channels: 1 } };
const rungs = planLiveLadder(source, { maxEncodedRungs: 1, audioOnly: false });
const children = new ChildProcessSet();
const valueAfter = (args: string[], flag: string, from = 0) => args[args.indexOf(flag, from) + 1];

const slateInput = (overrides: Partial<SlateTranscodeInput> = {}): SlateTranscodeInput => ({
  imagePath: '/tmp/slate.png',
  rungs,
  sourceSize: { width: 1280, height: 720 },
  frameRate: 30,
  audio: { sampleRate: 44100, channels: 1 },
  segmentSeconds: 1,
  fragmentSeconds: 0.5,
  burstSeconds: 1.5,
  preset: 'superfast',
  ...overrides,
});

describe('liveSlateArgs', () => {
  test('the image once, silence in the source layout, every rung encoded with keyframes each segment, a first burst then real time', () => {
    const { args, outputFds } = liveSlateArgs(slateInput());
    expect(outputFds).toEqual([3, 4]);
    expect(args.join(' ')).toContain('-framerate 30 -i /tmp/slate.png -f lavfi -i anullsrc=r=44100:cl=mono');
    expect(args).not.toContain('-loop');
    expect(valueAfter(args, '-filter_complex')!.split(';')).toEqual([
      '[0:v:0]split=2[slate0][slate1]',
      "[slate0]scale=1280:720:force_original_aspect_ratio=decrease,pad=1280:720:(ow-iw)/2:(oh-ih)/2,setsar=1,format=yuv420p,loop=loop=-1:size=1,setpts='max(PTS-1.5/TB\\,0)',realtime,setpts=N/(30*TB)[video0]",
      "[slate1]scale=640:360:force_original_aspect_ratio=decrease,pad=640:360:(ow-iw)/2:(oh-ih)/2,setsar=1,format=yuv420p,loop=loop=-1:size=1,setpts='max(PTS-1.5/TB\\,0)',realtime,setpts=N/(30*TB)[video1]",
      "[1:a:0]asetpts='max(PTS-1.5/TB\\,0)',arealtime,asetpts=N/SR/TB,asplit=2[audio0][audio1]",
    ]);
    expect(args.filter((arg) => arg === 'expr:gte(t,n_forced*1)')).toHaveLength(2);
    expect(args.join(' ')).toContain('-map [video0] -c:v libx264');
    expect(args.join(' ')).toContain('-map [audio1] -c:a aac');
    expect(args.at(-1)).toBe('pipe:4');
  });

  test('no burst: paced from the first frame', () => {
    const graph = valueAfter(liveSlateArgs(slateInput({ burstSeconds: 0 })).args, '-filter_complex')!;
    expect(graph).toContain('loop=loop=-1:size=1,realtime[video0]');
    expect(graph).toContain('[1:a:0]arealtime,asplit=2[audio0][audio1]');
    expect(graph).not.toContain('setpts');
  });

  test('audio only: silence alone, no image read', () => {
    const { args, outputFds } = liveSlateArgs(slateInput({ rungs: [{ name: 'audio', kind: 'audio-only' }], sourceSize: null }));
    expect(outputFds).toEqual([3]);
    expect(args).not.toContain('/tmp/slate.png');
    expect(valueAfter(args, '-filter_complex')).toContain("[0:a:0]asetpts='max(PTS-1.5/TB\\,0)',arealtime");
    expect(args.join(' ')).toContain('-map [audio0] -c:a aac');
  });

  test('refuses what it cannot draw', () => {
    expect(() => liveSlateArgs(slateInput({ sourceSize: null }))).toThrow(/source picture size/);
    expect(() => liveSlateArgs(slateInput({ rungs: [] }))).toThrow();
    expect(() => liveSlateArgs(slateInput({ rungs: [{ name: 'audio', kind: 'audio-only' }], audio: null }))).toThrow();
    expect(() => liveSlateArgs(slateInput({ segmentSeconds: 0 }))).toThrow(RangeError);
  });
});

describe('liveSlateArgs with ffmpeg', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-slate-'));
    // A 4:3 red card: letterboxed (black bars left and right) in the 16:9 rungs.
    await ffmpeg('-f', 'lavfi', '-i', 'color=c=red:s=400x300', '-frames:v', '1', path.join(dir, 'slate.png'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const rgbAt = async (file: string, x: number, y: number): Promise<number[]> => {
    const chunks: Buffer[] = [];
    const result = await runProcess({
      command: FFMPEG,
      args: ['-v', 'error', '-i', file, '-frames:v', '1', '-vf', `format=rgb24,crop=1:1:${x}:${y}`, '-pix_fmt', 'rgb24', '-f', 'rawvideo', 'pipe:1'],
      onStdout: (chunk) => chunks.push(chunk),
      children,
    });
    expect(result.exitCode).toBe(0);
    return [...Buffer.concat(chunks)];
  };

  test('the burst at once, then real time; segment-long GOPs, the picture letterboxed, silence in the source layout; every rung decodes', async () => {
    const { args, outputFds } = liveSlateArgs(slateInput({ imagePath: path.join(dir, 'slate.png') }));
    const runMs = 3_200;
    const { rungs: outputs, ranMs } = await runLivePackager(args, outputFds, { stopAfterMs: runMs });
    for (const [index, output] of outputs.entries()) {
      const tracks = readInitTracks(output.init);
      const video = tracks.find((track) => track.kind === 'video')!;
      expect([video.width, video.height]).toEqual(index === 0 ? [1280, 720] : [640, 360]);
      const audio = tracks.find((track) => track.kind === 'audio');
      expect(audio).toBeDefined();
      const defaults = readTrackDefaults(output.init);
      const videoTimings = output.fragments.flatMap((fragment) => readFragmentTimings(fragment, defaults)).filter((timing) => timing.trackId === video.trackId);
      const keyframeTimes = videoTimings.filter((timing) => timing.firstSampleIsSync).map((timing) => Number(timing.baseDecodeTime) / video.timescale);
      expect(keyframeTimes[1]! - keyframeTimes[0]!).toBeCloseTo(1, 1);
      // The burst plus at most the time ffmpeg ran (wall clock, not the timer: under load SIGTERM
      // comes late) and a fragment: paced after the burst, not racing ahead (splitting the burst
      // off and joining it back ran a second further).
      const mediaEnd = Math.max(...videoTimings.map((timing) => (Number(timing.baseDecodeTime) + timing.durationTicks) / video.timescale));
      const keyframesSeen = `keyframes at ${keyframeTimes.join(', ')}, media to ${mediaEnd} s after ${ranMs} ms`;
      expect(keyframeTimes.at(-1)!, keyframesSeen).toBeGreaterThanOrEqual(3);
      expect(mediaEnd, keyframesSeen).toBeLessThanOrEqual(ranMs / 1000 + 1.5 + 0.5);
      const file = path.join(dir, `rung${index}.mp4`);
      await writeFile(file, Buffer.concat([output.init, ...output.fragments]));
      expect(await decodeErrors(file)).toBe('');
      const probe = await probeJson(file, 'stream=codec_type,sample_rate,channels,duration');
      const silence = probe.streams.find((stream) => stream.codec_type === 'audio')!;
      expect([Number(silence.sample_rate), silence.channels]).toEqual([44100, 1]);
      const [width, height] = index === 0 ? [1280, 720] : [640, 360];
      const [red, green] = await rgbAt(file, width / 2, height / 2);
      expect(red).toBeGreaterThan(200);
      expect(green).toBeLessThan(40);
      expect(Math.max(...(await rgbAt(file, 4, height / 2)))).toBeLessThan(30);
    }
  }, 30_000);
});
