import { describe, expect, test } from 'vitest';
import { buildStaticRemuxArgs } from './remux-args';

const option = (args: string[], name: string) => args[args.indexOf(name) + 1];

describe('buildStaticRemuxArgs', () => {
  test('video and audio: both copied into one faststart MP4', () => {
    const args = buildStaticRemuxArgs({ videoPath: '/w/video.mp4', audioPath: '/w/audio.mp4', outputPath: '/o/highest.mp4' });
    expect(args.filter((_, index) => args[index - 1] === '-i')).toEqual(['/w/video.mp4', '/w/audio.mp4']);
    expect(args.join(' ')).toContain('-map 0:v:0 -map 1:a:0');
    expect(option(args, '-c')).toBe('copy');
    expect(option(args, '-movflags')).toBe('+faststart');
    expect(option(args, '-f')).toBe('mp4');
    expect(args.at(-1)).toBe('/o/highest.mp4');
  });

  test('video without audio maps only the video', () => {
    const args = buildStaticRemuxArgs({ videoPath: '/w/video.mp4', audioPath: null, outputPath: '/o/720p.mp4' });
    expect(args.filter((arg) => arg === '-map')).toHaveLength(1);
    expect(option(args, '-map')).toBe('0:v:0');
  });

  test('audio only is an M4A', () => {
    const args = buildStaticRemuxArgs({ videoPath: null, audioPath: '/w/audio.mp4', outputPath: '/o/audio.m4a' });
    expect(option(args, '-i')).toBe('/w/audio.mp4');
    expect(option(args, '-map')).toBe('0:a:0');
    expect(option(args, '-f')).toBe('ipod');
  });

  test('nothing to remux is a programming error', () => {
    expect(() => buildStaticRemuxArgs({ videoPath: null, audioPath: null, outputPath: '/o/x.mp4' })).toThrow();
  });
});
