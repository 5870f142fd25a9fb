import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addEmulationPrevention, captionSeiNal, cea608CcData, extractCaptionsWebVtt, injectCea608, makeCaptionedH264, oddParity } from './cea608-fixture';

const run = promisify(execFile);

const ones = (byte: number) => [...byte.toString(2)].filter((bit) => bit === '1').length;
/** Field-1 pairs of each frame, parity stripped; null pairs as undefined. */
const field1 = (cc: Buffer[]) => cc.map((frame) => (frame[1] === 0x80 && frame[2] === 0x80 ? undefined : [frame[1]! & 0x7f, frame[2]! & 0x7f]));

describe('CEA-608 byte pairs', () => {
  test('every byte gets odd parity in bit 7', () => {
    expect([0x00, 0x01, 0x14, 0x20, 0x41, 0x7f].map(oddParity)).toEqual([0x80, 0x01, 0x94, 0x20, 0xc1, 0x7f]);
    for (let byte = 0; byte < 0x80; byte += 1) expect(ones(oddParity(byte)) % 2).toBe(1);
  });

  test('pop-on: RCL, ENM, PAC, text loaded before start; control codes twice; EOC at start, EDM at end', () => {
    const cc = cea608CcData([{ text: 'HI!', start: 1, end: 2 }], 30, 90);
    expect(cc).toHaveLength(90);
    expect(cc[0]).toEqual(Buffer.from([0xfc, 0x80, 0x80, 0xfd, 0x80, 0x80])); // field 1 and 2 idle
    const pairs = field1(cc);
    const sent = pairs.flatMap((pair, frame) => (pair ? [{ frame, pair }] : []));
    const RCL = [0x14, 0x20], ENM = [0x14, 0x2e], PAC15 = [0x14, 0x60], EOC = [0x14, 0x2f], EDM = [0x14, 0x2c];
    const HI = [0x48, 0x49], BANG = [0x21, 0x00];
    expect(sent.map(({ pair }) => pair)).toEqual([RCL, RCL, ENM, ENM, PAC15, PAC15, HI, BANG, EOC, EOC, EDM, EDM]);
    expect(sent.map(({ frame }) => frame)).toEqual([22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 60, 61]);
  });

  test('the next caption loads while the previous one shows, around its EDM, control codes kept adjacent', () => {
    const cc = cea608CcData([{ text: 'ONE', start: 1, end: 1.5 }, { text: 'TWO\nROWS ñ', start: 1.7, end: 2.5 }], 30, 90);
    const pairs = field1(cc);
    expect(pairs[45]).toEqual([0x14, 0x2c]); // EDM of ONE at 1.5 s ...
    expect(pairs[51]).toEqual([0x14, 0x2f]); // ... EOC of the second at 1.7 s, loaded in between
    const loaded = pairs.slice(32, 51).filter((pair) => pair && pair[1] !== 0x2c);
    expect(loaded).toEqual([
      [0x14, 0x20], [0x14, 0x20], [0x14, 0x2e], [0x14, 0x2e],
      [0x14, 0x40], [0x14, 0x40], [0x54, 0x57], [0x4f, 0x00], // row 14: TWO
      [0x14, 0x60], [0x14, 0x60], [0x52, 0x4f], [0x57, 0x53], [0x20, 0x7e], // row 15: ROWS ñ (0x7E)
    ]);
    for (let frame = 1; frame < 90; frame += 1) {
      const [pair, before, after] = [pairs[frame], pairs[frame - 1], pairs[frame + 1]];
      // A control code (first byte 0x10–0x1F) always has its twin right next to it.
      if (pair && pair[0]! >= 0x10 && pair[0]! <= 0x1f) expect([before, after]).toContainEqual(pair);
    }
  });

  test('refuses what it cannot send', () => {
    expect(() => cea608CcData([{ text: 'a*b', start: 1, end: 2 }], 30, 90)).toThrow(/basic character set/);
    expect(() => cea608CcData([{ text: 'x'.repeat(33), start: 1, end: 2 }], 30, 90)).toThrow(/1–32 characters/);
    expect(() => cea608CcData([{ text: 'LONG ENOUGH TEXT', start: 0.1, end: 2 }], 30, 90)).toThrow(/not enough frames/);
  });
});

describe('SEI NAL unit', () => {
  test('user_data_registered_itu_t_t35 with GA94 cc_data, then the RBSP trailing bits', () => {
    const nal = captionSeiNal(Buffer.from([0xfc, 0x94, 0x20, 0xfd, 0x80, 0x80]));
    expect([...nal]).toEqual([
      0x06, // nal_unit_type 6 (SEI)
      0x04, 0x11, // payloadType 4, payloadSize 17
      0xb5, 0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, // USA, ATSC, 'GA94', cc_data
      0xc2, 0xff, // flags + cc_count 2, em_data
      0xfc, 0x94, 0x20, 0xfd, 0x80, 0x80,
      0xff, // marker_bits
      0x80, // rbsp_stop_one_bit + alignment
    ]);
  });

  test('emulation prevention: 0x03 after two zero bytes before any byte <= 3', () => {
    expect([...addEmulationPrevention(Buffer.from([0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4]))]).toEqual([0, 0, 3, 0, 0, 3, 0, 1, 0, 0, 3, 2, 0, 0, 3, 3, 0, 0, 4]);
    const nal = captionSeiNal(Buffer.from([0xfa, 0x00, 0x00, 0x03, 0x00, 0x00]));
    expect([...nal.subarray(13)]).toEqual([0xfa, 0x00, 0x00, 0x03, 0x03, 0x00, 0x00, 0xff, 0x80]);
  });

  test('inserted before the first slice of each picture only, keeping start codes whole', () => {
    const start = [0, 0, 0, 1];
    const stream = Buffer.from([
      ...start, 0x67, 0x42, ...start, 0x68, 0xce, // SPS, PPS
      ...start, 0x65, 0x88, 0x84, 0, 0, 1, 0x65, 0x12, // IDR: first slice (first_mb 0), second slice
      ...start, 0x41, 0x9a, 0x00, // next picture
    ]);
    const cc = [Buffer.from([0xfc, 0x80, 0x80]), Buffer.from([0xfc, 0xc1, 0x80])];
    const sei = (triplet: Buffer) => [...start, ...captionSeiNal(triplet)];
    expect([...injectCea608(stream, cc)]).toEqual([
      ...start, 0x67, 0x42, ...start, 0x68, 0xce,
      ...sei(cc[0]!), ...start, 0x65, 0x88, 0x84, 0, 0, 1, 0x65, 0x12,
      ...sei(cc[1]!), ...start, 0x41, 0x9a, 0x00,
    ]);
  });
});

type Cue = { start: number; end: number; text: string };
const seconds = (time: string) => time.split(':').reduce((total, part) => total * 60 + Number(part), 0);
const parseWebVtt = (vtt: string): Cue[] =>
  vtt.split(/\n\n+/).flatMap((block) => {
    const lines = block.trim().split('\n');
    const timing = lines.findIndex((line) => line.includes('-->'));
    if (timing < 0) return [];
    const [start = '', end = ''] = lines[timing]!.split(/\s+-->\s+/);
    return [{ start: seconds(start), end: seconds(end.split(' ')[0]!), text: lines.slice(timing + 1).join('\n') }];
  });

describe('a captioned clip, checked with ffmpeg', () => {
  const captions = [
    { text: 'HELLO WORLD', start: 1.0, end: 2.5 },
    { text: 'SECOND LINE', start: 3.0, end: 4.5 },
    { text: 'TWO ROWS\nOF TEXT', start: 4.8, end: 5.8 },
  ];
  let dir = '';
  const clip = (ext: string) => path.join(dir, `clip.${ext}`);

  beforeAll(async () => {
    // Characters that need escaping in a filtergraph, so extractCaptionsWebVtt proves it does.
    dir = await mkdtemp(path.join(os.tmpdir(), "keyframe cc's [a,b]; c:d-"));
    await Promise.all(['h264', 'mp4', 'flv'].map((ext) => makeCaptionedH264({ outputPath: clip(ext), seconds: 6, captions })));
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test.each(['mp4', 'flv'])('ffmpeg decodes the captions from the %s at the times asked', async (ext) => {
    const cues = parseWebVtt(await extractCaptionsWebVtt(clip(ext)));
    expect(cues.map(({ text }) => text)).toEqual(captions.map(({ text }) => text));
    cues.forEach((cue, index) => {
      expect(Math.abs(cue.start - captions[index]!.start)).toBeLessThan(0.2);
      expect(Math.abs(cue.end - captions[index]!.end)).toBeLessThan(0.2);
    });
  });

  test('the video decodes without errors', async () => {
    for (const input of [['-framerate', '30000/1001', '-f', 'h264', '-i', clip('h264')], ['-i', clip('mp4')], ['-i', clip('flv')]]) {
      const { stdout, stderr } = await run('ffmpeg', ['-nostdin', '-v', 'error', ...input, '-f', 'null', '-']);
      expect(stdout + stderr).toBe('');
    }
  });

  test('ffprobe reports closed captions on the video stream', async () => {
    // The flag comes from ffprobe's own decoder, so frames have to be decoded (-count_frames).
    const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v', '-show_entries', 'stream=closed_captions,nb_read_frames', '-of', 'json', clip('mp4')]);
    expect(JSON.parse(stdout).streams).toEqual([{ closed_captions: 1, nb_read_frames: '180' }]);
  });
});
