import { describe, expect, test } from 'vitest';
import { planLiveLadder, type LiveSourceInfo } from './live-ladder';

const audio = { codec: 'aac', sampleRate: 48000, channels: 2 };
const source = (width: number, height: number): LiveSourceInfo => ({ video: { codec: 'h264', width, height, frameRate: 30 }, audio });
const shape = (rungs: ReturnType<typeof planLiveLadder>) =>
  rungs.map((rung) => (rung.kind === 'encode' ? `${rung.name} ${rung.width}x${rung.height}` : `${rung.name} ${rung.kind}`));

describe('planLiveLadder', () => {
  test('1080p with two encoded rungs: source passed through, then 720p and 360p (the lowest is always kept)', () => {
    expect(shape(planLiveLadder(source(1920, 1080), { maxEncodedRungs: 2, audioOnly: false }))).toEqual(['source copy', '720p 1280x720', '360p 640x360']);
  });

  test('1080p with three: 720p, 480p and 360p; 854 wide keeps 16:9 on an even width', () => {
    expect(shape(planLiveLadder(source(1920, 1080), { maxEncodedRungs: 3, audioOnly: false }))).toEqual([
      'source copy',
      '720p 1280x720',
      '480p 854x480',
      '360p 640x360',
    ]);
  });

  test('720p: only rungs strictly below the source', () => {
    expect(shape(planLiveLadder(source(1280, 720), { maxEncodedRungs: 2, audioOnly: false }))).toEqual(['source copy', '480p 854x480', '360p 640x360']);
    expect(shape(planLiveLadder(source(1280, 720), { maxEncodedRungs: 1, audioOnly: false }))).toEqual(['source copy', '360p 640x360']);
  });

  test('no encoding budget, or a source at 360p or below: the source alone', () => {
    expect(shape(planLiveLadder(source(1920, 1080), { maxEncodedRungs: 0, audioOnly: false }))).toEqual(['source copy']);
    expect(shape(planLiveLadder(source(640, 360), { maxEncodedRungs: 2, audioOnly: false }))).toEqual(['source copy']);
  });

  test('portrait and 4:3 sources keep their shape, rungs named after the short side', () => {
    expect(shape(planLiveLadder(source(1080, 1920), { maxEncodedRungs: 2, audioOnly: false }))).toEqual(['source copy', '720p 720x1280', '360p 360x640']);
    expect(shape(planLiveLadder(source(1024, 768), { maxEncodedRungs: 2, audioOnly: false }))).toEqual(['source copy', '720p 960x720', '360p 480x360']);
  });

  test('bitrates, peak rate and buffer of encoded rungs', () => {
    const [, hd, sd] = planLiveLadder(source(1920, 1080), { maxEncodedRungs: 2, audioOnly: false });
    expect(hd).toMatchObject({ videoBitrate: 3_000_000, maxRate: 3_600_000, bufSize: 3_600_000 });
    expect(sd).toMatchObject({ videoBitrate: 800_000, maxRate: 960_000, bufSize: 960_000 });
  });

  test('audio-only streams get the audio alone, whatever video comes with it', () => {
    expect(planLiveLadder(source(1920, 1080), { maxEncodedRungs: 2, audioOnly: true })).toEqual([{ name: 'audio', kind: 'audio-only' }]);
    expect(() => planLiveLadder({ video: source(1280, 720).video }, { maxEncodedRungs: 2, audioOnly: true })).toThrow(/needs an audio track/);
  });

  test('refused: no video on a video stream, video other than H.264, a budget that is not a whole number', () => {
    expect(() => planLiveLadder({ audio }, { maxEncodedRungs: 2, audioOnly: false })).toThrow(/no video track/);
    expect(() => planLiveLadder({ video: { codec: 'hevc', width: 1920, height: 1080 }, audio }, { maxEncodedRungs: 2, audioOnly: false })).toThrow(/must be H.264/);
    expect(() => planLiveLadder(source(1920, 1080), { maxEncodedRungs: 1.5, audioOnly: false })).toThrow(RangeError);
  });
});
