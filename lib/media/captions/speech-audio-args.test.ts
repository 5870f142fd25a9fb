import { describe, expect, test } from 'vitest';
import { buildSpeechAudioArgs, speechAudioSeconds } from './speech-audio-args';

const option = (args: string[], name: string) => args[args.indexOf(name) + 1];

describe('buildSpeechAudioArgs', () => {
  test('one audio stream to 16 kHz mono 16-bit WAV without metadata', () => {
    const args = buildSpeechAudioArgs({ input: '/data/source', audioStreamIndex: 1, outputPath: '/w/speech.wav' });
    expect(option(args, '-i')).toBe('/data/source');
    expect(option(args, '-map')).toBe('0:a:1');
    expect(option(args, '-ac')).toBe('1');
    expect(option(args, '-ar')).toBe('16000');
    expect(option(args, '-c:a')).toBe('pcm_s16le');
    expect(option(args, '-f')).toBe('wav');
    expect(option(args, '-map_metadata')).toBe('-1');
    expect(option(args, '-af')).toBe('aresample=16000,asetpts=N/SR/TB');
    expect(args).toEqual(expect.arrayContaining(['-vn', '-sn', '-dn', '-nostdin', '-y']));
    expect(args.at(-1)).toBe('/w/speech.wav');
  });
});

describe('speechAudioSeconds', () => {
  test('from the WAV size', () => {
    expect(speechAudioSeconds(44 + 32_000 * 3)).toBe(3);
    expect(speechAudioSeconds(10)).toBe(0);
  });
});
