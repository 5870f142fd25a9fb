import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// H.264 with CEA-608 closed captions embedded the way broadcast encoders do it, made at test time
// (ffmpeg cannot encode 608 from text, and we ship no samples). Specifications followed:
// - CEA-608-E: pop-on captions on field 1, channel CC1; odd parity on every byte; control codes sent
//   twice in consecutive frames (decoders drop the repeat); one byte pair per frame.
// - ATSC A/53 Part 4: ATSC_user_data() with user_identifier 'GA94', user_data_type_code 0x03 and
//   cc_data() (flags + cc_count, em_data, cc_count × {marker, cc_valid, cc_type, 2 bytes}, marker).
// - ITU-T H.264 §7.3.2.3 (sei_rbsp / sei_message), §D.1.6 (user_data_registered_itu_t_t35,
//   payloadType 4, country code 0xB5 = USA, provider 0x0031 = ATSC), §7.4.1 (emulation
//   prevention bytes) and §7.4.1.2.3 (SEI NAL units come before the picture's first slice).

const run = promisify(execFile);
const QUIET = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y'];

export type Caption = {
  /** One or two rows (split on "\n"), at most 32 characters each, from the basic North American set. */
  text: string;
  /** Seconds from the first frame: when the caption appears (EOC) and is erased (EDM). */
  start: number;
  end: number;
};

/** Bit 7 set or cleared so the byte has an odd number of 1 bits (CEA-608 parity). */
export const oddParity = (byte: number): number => {
  let ones = 0;
  for (let bits = byte & 0x7f; bits; bits >>= 1) ones += bits & 1;
  return ones % 2 === 0 ? (byte & 0x7f) | 0x80 : byte & 0x7f;
};

// CC1 control codes (first byte 0x14 = field 1, data channel 1).
const RCL = [0x14, 0x20]; // resume caption loading: pop-on mode
const EDM = [0x14, 0x2c]; // erase displayed memory
const ENM = [0x14, 0x2e]; // erase non-displayed memory
const EOC = [0x14, 0x2f]; // end of caption: swap memories, showing what was loaded
// Preamble address codes, white, column 0, for the bottom rows where captions normally sit.
const PAC_ROW = { 14: [0x14, 0x40], 15: [0x14, 0x60] } as const;

// The basic North American set is ASCII except for these ten code points.
const SPECIAL: Record<string, number> = { á: 0x2a, é: 0x5c, í: 0x5e, ó: 0x5f, ú: 0x60, ç: 0x7b, '÷': 0x7c, Ñ: 0x7d, ñ: 0x7e, '█': 0x7f };
const NOT_IN_SET = new Set(['*', '\\', '^', '_', '`', '{', '|', '}', '~']);

const charCode = (char: string): number => {
  const special = SPECIAL[char];
  if (special !== undefined) return special;
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || code > 0x7e || NOT_IN_SET.has(char)) throw new Error(`"${char}" is not in the CEA-608 basic character set`);
  return code;
};

type Pair = readonly [number, number];
/** A control code, as its two transmissions in consecutive frames. */
export const doubled = (code: readonly number[]): Pair[] => [[code[0]!, code[1]!], [code[0]!, code[1]!]];

/** The pairs that load `text` into non-displayed memory, ready for an EOC. */
export const loadingPairs = (text: string): Pair[][] => {
  const rows = text.split('\n');
  if (rows.length > 2 || rows.some((row) => row.length === 0 || row.length > 32)) {
    throw new Error(`caption "${text}": one or two rows of 1–32 characters`);
  }
  // Units are kept together when scheduled: a doubled control code must fill consecutive frames.
  const units: Pair[][] = [doubled(RCL), doubled(ENM)];
  rows.forEach((row, index) => {
    units.push(doubled(PAC_ROW[rows.length === 2 && index === 0 ? 14 : 15]));
    const codes = [...row].map(charCode);
    for (let i = 0; i < codes.length; i += 2) units.push([[codes[i]!, codes[i + 1] ?? 0x00]]); // 0x00 pads an odd count
  });
  return units;
};

/**
 * Per video frame, the cc_data() triplets: field 1 carrying CC1 (a null pair, 0x80 0x80, when idle)
 * then a null field 2, as a 29.97 fps broadcast stream has them. One pair a frame is 608's
 * bandwidth at ~30 fps; a caption needs about (characters / 2 + 8) frames to load, which happen
 * just before its `start` (while the previous caption is still shown, as pop-on allows).
 */
export const cea608CcData = (captions: readonly Caption[], frameRate: number, frames: number): Buffer[] => {
  const slots: (Pair | undefined)[] = new Array(frames).fill(undefined);
  const frameAt = (seconds: number) => Math.round(seconds * frameRate);
  const place = (at: number, pairs: readonly Pair[]) => {
    pairs.forEach((pair, i) => {
      if (at + i < frames) slots[at + i] = pair;
    });
  };
  const sorted = [...captions].sort((a, b) => a.start - b.start);
  sorted.forEach((caption, index) => {
    const next = sorted[index + 1];
    if (!(caption.end > caption.start) || (next && next.start < caption.end)) throw new Error(`caption "${caption.text}" has a bad or overlapping time range`);
    place(frameAt(caption.start), doubled(EOC));
    // Back to back: the next caption's EOC replaces this one, and an EDM would collide with it.
    if (!next || frameAt(next.start) > frameAt(caption.end) + 1) place(frameAt(caption.end), doubled(EDM));
  });
  sorted.forEach((caption, index) => {
    const previous = sorted[index - 1];
    const earliest = previous ? frameAt(previous.start) + 2 : 0; // after the previous EOC has shown its caption
    let cursor = frameAt(caption.start) - 1;
    // Fill backwards from the EOC, stepping around the frames the EOCs/EDMs already hold.
    for (const unit of loadingPairs(caption.text).reverse()) {
      while (cursor - unit.length + 1 >= earliest && unit.some((_, i) => slots[cursor - unit.length + 1 + i])) cursor -= 1;
      const at = cursor - unit.length + 1;
      if (at < earliest) throw new Error(`caption "${caption.text}": not enough frames before ${caption.start} s to load it`);
      place(at, unit);
      cursor = at - 1;
    }
  });
  return slots.map((pair) => {
    const [first, second] = pair ?? [0x00, 0x00];
    // 0xFC: marker bits 11111, cc_valid 1, cc_type 00 (608 field 1); 0xFD: cc_type 01 (field 2).
    return Buffer.from([0xfc, oddParity(first), oddParity(second), 0xfd, 0x80, 0x80]);
  });
};

/** Inserts 0x03 after any two zero bytes that precede a byte ≤ 0x03, so no start code appears inside a NAL. */
export const addEmulationPrevention = (rbsp: Buffer): Buffer => {
  const out: number[] = [];
  let zeros = 0;
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 0x03) {
      out.push(0x03);
      zeros = 0;
    }
    out.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(out);
};

/** A complete SEI NAL unit (header byte + escaped RBSP, no start code) carrying `ccData` triplets. */
export const captionSeiNal = (ccData: Buffer): Buffer => {
  const ccCount = ccData.length / 3;
  if (!Number.isInteger(ccCount) || ccCount < 1 || ccCount > 31) throw new Error('cc_data must be 1–31 triplets');
  const payload = Buffer.concat([
    Buffer.from([0xb5, 0x00, 0x31]), // itu_t_t35_country_code (USA), itu_t_t35_provider_code (ATSC)
    Buffer.from('GA94', 'latin1'), // ATSC user_identifier
    Buffer.from([0x03]), // user_data_type_code: cc_data()
    Buffer.from([0xc0 | ccCount, 0xff]), // process_em_data_flag, process_cc_data_flag, cc_count; em_data
    ccData,
    Buffer.from([0xff]), // marker_bits
  ]);
  // payloadType 4 and payloadSize (both < 255, so one byte each), then rbsp_trailing_bits.
  const rbsp = Buffer.concat([Buffer.from([0x04, payload.length]), payload, Buffer.from([0x80])]);
  return Buffer.concat([Buffer.from([0x06]), addEmulationPrevention(rbsp)]); // nal_ref_idc 0, nal_unit_type 6
};

/**
 * Puts `ccPerFrame[n]` into an SEI NAL unit before the n-th picture of an Annex-B stream. A picture
 * starts at a slice (type 1 or 5) whose first_mb_in_slice is 0: its ue(v) code is then a single 1
 * bit, the top bit of the byte after the NAL header. The stream must have no B-frames (`-bf 0`), so
 * decode order is display order. Pictures beyond `ccPerFrame` are left as they are.
 */
export const injectCea608 = (h264AnnexB: Buffer, ccPerFrame: readonly Buffer[]): Buffer => {
  const pieces: Buffer[] = [];
  let copiedTo = 0;
  let picture = 0;
  for (let i = 0; i + 3 < h264AnnexB.length; i += 1) {
    if (h264AnnexB[i] !== 0 || h264AnnexB[i + 1] !== 0 || h264AnnexB[i + 2] !== 1) continue;
    const header = h264AnnexB[i + 3]!;
    const type = header & 0x1f;
    const firstSlice = (type === 1 || type === 5) && (h264AnnexB[i + 4]! & 0x80) !== 0;
    const cc = ccPerFrame[picture];
    if (firstSlice && cc) {
      // Before the whole start code, including a leading zero_byte.
      const prefix = i > copiedTo && h264AnnexB[i - 1] === 0 ? i - 1 : i;
      pieces.push(h264AnnexB.subarray(copiedTo, prefix), Buffer.from([0, 0, 0, 1]), captionSeiNal(cc));
      copiedTo = prefix;
    }
    if (firstSlice) picture += 1;
    i += 3;
  }
  pieces.push(h264AnnexB.subarray(copiedTo));
  return Buffer.concat(pieces);
};

/** ffmpeg's spelling of a frame rate: the NTSC rates as n/1001. */
export const ffmpegFrameRate = (frameRate: number): string => {
  const ntsc = frameRate * 1.001;
  return !Number.isInteger(frameRate) && Math.abs(ntsc - Math.round(ntsc)) < 0.01 ? `${Math.round(ntsc) * 1000}/1001` : String(frameRate);
};

export type CaptionedH264Options = {
  outputPath: string;
  seconds: number;
  captions: readonly Caption[];
  width?: number;
  height?: number;
  /** Frames per second; 29.97 (the default) means 30000/1001. */
  frameRate?: number;
  /** 'h264' writes the Annex-B stream itself; 'mp4' / 'flv' mux it (copied) with an AAC track. Default: from the extension. */
  container?: 'h264' | 'mp4' | 'flv';
  /** The AAC track of an MP4/FLV: a quiet 440 Hz tone (default) or silence. */
  audio?: 'sine' | 'silence';
  ffmpeg?: string;
};

/** A testsrc2 pattern as H.264 (keyframe every second, no B-frames, one slice a frame) with `captions` in CC1. */
export const makeCaptionedH264 = async ({
  outputPath,
  seconds,
  captions,
  width = 640,
  height = 360,
  frameRate = 29.97,
  container = outputPath.endsWith('.mp4') ? 'mp4' : outputPath.endsWith('.flv') ? 'flv' : 'h264',
  audio = 'sine',
  ffmpeg = 'ffmpeg',
}: CaptionedH264Options): Promise<{ path: string; frames: number; frameRate: string }> => {
  const rate = ffmpegFrameRate(frameRate);
  const [num, den = '1'] = rate.split('/');
  const exactRate = Number(num) / Number(den);
  const frames = Math.round(seconds * exactRate);
  const gop = String(Math.round(exactRate));
  const work = await mkdtemp(path.join(os.tmpdir(), 'keyframe-cea608-'));
  try {
    const plain = path.join(work, 'plain.h264');
    await run(ffmpeg, [
      ...QUIET, '-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}:rate=${rate}`, '-frames:v', String(frames),
      '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-bf', '0',
      '-g', gop, '-keyint_min', gop, '-sc_threshold', '0', '-x264-params', 'slices=1', '-f', 'h264', plain,
    ]);
    const captioned = injectCea608(await readFile(plain), cea608CcData(captions, exactRate, frames));
    if (container === 'h264') {
      await writeFile(outputPath, captioned);
    } else {
      const raw = path.join(work, 'captioned.h264');
      await writeFile(raw, captioned);
      const tone = audio === 'sine' ? 'sine=frequency=440:sample_rate=48000,volume=0.1' : 'anullsrc=r=48000:cl=stereo';
      await run(ffmpeg, [
        ...QUIET, '-framerate', rate, '-f', 'h264', '-i', raw, '-f', 'lavfi', '-t', String(frames / exactRate), '-i', tone,
        '-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-c:a', 'aac', '-b:a', '96k',
        ...(container === 'mp4' ? ['-movflags', '+faststart'] : []), '-f', container, outputPath,
      ]);
    }
    return { path: outputPath, frames, frameRate: rate };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
};

/** `file` inside a filtergraph: escaped for the filter's option parser, then for the graph parser. */
export const filterGraphPath = (file: string): string => file.replace(/[\\':]/g, '\\$&').replace(/[\\'[\],;]/g, '\\$&');

/**
 * The CEA-608 captions (CC1) that ffmpeg's own H.264 and 608 decoders find in `file`, as WebVTT:
 * lavfi's movie source with `+subcc` exports the decoder's A53 side data as a subtitle stream.
 */
export const extractCaptionsWebVtt = async (file: string, ffmpeg = 'ffmpeg'): Promise<string> => {
  const graph = `movie=${filterGraphPath(file)}[out0+subcc]`;
  const { stdout } = await run(ffmpeg, [...QUIET, '-f', 'lavfi', '-i', graph, '-map', '0:s', '-c:s', 'webvtt', '-f', 'webvtt', '-']);
  return stdout;
};
