import { children as readChildBoxes, fullBoxHeader as readFullBoxHeader, parseBoxes as readBoxes, readTfdt, toBuffer as asBuffer, type Box as Mp4Box } from '../fmp4-boxes';

// What a live packager needs to know about ffmpeg's fragmented MP4 without decoding it: the
// tracks and codecs of the init segment (for CODECS in the multivariant playlist), and per
// fragment the time span and whether it opens on a keyframe (for parts and segment cuts).
// Field layouts are those of ISO/IEC 14496-12 (boxes) and 14496-1/-15 (esds, avcC).

export type InitTrack = {
  trackId: number;
  timescale: number;
  kind: 'video' | 'audio' | 'other';
  /** RFC 6381 codec string: 'avc1.64001f' from avcC, 'mp4a.40.2' from esds, else the sample entry type. */
  codec: string;
  width?: number;
  height?: number;
  channels?: number;
  sampleRate?: number;
};

/** The per-track fragment defaults of the init segment's trex boxes, keyed by track id. */
export type TrackFragmentDefaults = { sampleDuration: number; sampleFlags: number };

export type FragmentTiming = {
  trackId: number;
  baseDecodeTime: bigint;
  /**
   * Presentation time of the first sample (decode time plus its composition offset). Equal to
   * baseDecodeTime without B-frames; with them, the time to compare across renditions.
   */
  firstPresentationTime: bigint;
  /** Sum of the sample durations, in the track's timescale. */
  durationTicks: number;
  sampleCount: number;
  firstSampleIsSync: boolean;
};

// tfhd optional fields (§8.8.7) in their order of appearance.
const TFHD_BASE_DATA_OFFSET = 0x00_0001;
const TFHD_SAMPLE_DESCRIPTION_INDEX = 0x00_0002;
const TFHD_DEFAULT_SAMPLE_DURATION = 0x00_0008;
const TFHD_DEFAULT_SAMPLE_SIZE = 0x00_0010;
const TFHD_DEFAULT_SAMPLE_FLAGS = 0x00_0020;
// trun optional fields (§8.8.8).
const TRUN_DATA_OFFSET = 0x00_0001;
const TRUN_FIRST_SAMPLE_FLAGS = 0x00_0004;
const TRUN_SAMPLE_DURATION = 0x00_0100;
const TRUN_SAMPLE_SIZE = 0x00_0200;
const TRUN_SAMPLE_FLAGS = 0x00_0400;
const TRUN_SAMPLE_COMPOSITION_OFFSET = 0x00_0800;
const PER_SAMPLE_FIELDS = [TRUN_SAMPLE_DURATION, TRUN_SAMPLE_SIZE, TRUN_SAMPLE_FLAGS, TRUN_SAMPLE_COMPOSITION_OFFSET];
// sample_flags (§8.8.3.1): the sample is not a sync sample (for video: not a keyframe).
const SAMPLE_IS_NON_SYNC = 0x01_0000;

const find = (boxes: Mp4Box[], type: string, where: string): Mp4Box => {
  const box = boxes.find((candidate) => candidate.type === type);
  if (!box) throw new Error(`Invalid MP4: no ${type} box in ${where}`);
  return box;
};

const payloadOf = (box: Mp4Box) => box.start + box.headerSize;

const need = (box: Mp4Box, at: number, bytes: number) => {
  if (at + bytes > box.end) throw new Error(`Invalid MP4: "${box.type}" box at offset ${box.start} is too short`);
};

const hex2 = (value: number) => value.toString(16).padStart(2, '0');

// ---------------------------------------------------------------------------------------------
// Init segment

function readTrackId(buf: Buffer, tkhd: Mp4Box): number {
  const { version, payload } = readFullBoxHeader(buf, tkhd, 0);
  // creation and modification times precede the id: 32-bit in v0, 64-bit in v1.
  const at = payload + (version === 1 ? 16 : 8);
  need(tkhd, at, 4);
  return buf.readUInt32BE(at);
}

function readTimescale(buf: Buffer, mdhd: Mp4Box): number {
  const { version, payload } = readFullBoxHeader(buf, mdhd, 0);
  const at = payload + (version === 1 ? 16 : 8);
  need(mdhd, at, 4);
  const timescale = buf.readUInt32BE(at);
  if (timescale === 0) throw new Error('Invalid MP4 init segment: mdhd timescale is 0');
  return timescale;
}

function readHandler(buf: Buffer, hdlr: Mp4Box): string {
  const { payload } = readFullBoxHeader(buf, hdlr, 8);
  return buf.toString('latin1', payload + 4, payload + 8);
}

/** MPEG-4 descriptor header (14496-1 §8.3.3): a tag byte, then a size in up to four 7-bit groups. */
function readDescriptor(buf: Buffer, at: number, end: number): { tag: number; body: number; end: number } | undefined {
  if (at + 2 > end) return undefined;
  const tag = buf[at] ?? 0;
  let size = 0;
  let cursor = at + 1;
  for (let i = 0; i < 4; i++) {
    if (cursor >= end) return undefined;
    const byte = buf[cursor++] ?? 0;
    size = (size << 7) | (byte & 0x7f);
    if ((byte & 0x80) === 0) break;
  }
  if (cursor + size > end) return undefined;
  return { tag, body: cursor, end: cursor + size };
}

const ES_DESCRIPTOR = 0x03;
const DECODER_CONFIG_DESCRIPTOR = 0x04;
const DECODER_SPECIFIC_INFO = 0x05;
const OBJECT_TYPE_MPEG4_AUDIO = 0x40;

// ISO/IEC 14496-3 Table 1.16 (sampling_frequency_index) and Table 1.19 (channelConfiguration).
const AAC_SAMPLE_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];
const AAC_CHANNELS: Record<number, number> = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 8, 11: 7, 12: 8, 14: 8 };

type AudioConfig = { codec: string; channels?: number; sampleRate?: number };

/** AudioSpecificConfig (14496-3 §1.6.2.1): object type, sampling frequency, channel configuration. */
function readAudioSpecificConfig(buf: Buffer, start: number, end: number): AudioConfig {
  let bit = start * 8;
  const read = (bits: number): number | undefined => {
    if (bit + bits > end * 8) return undefined;
    let value = 0;
    for (let i = 0; i < bits; i++, bit++) value = value * 2 + (((buf[bit >> 3] ?? 0) >> (7 - (bit & 7))) & 1);
    return value;
  };
  let objectType = read(5);
  if (objectType === 31) objectType = 32 + (read(6) ?? 0);
  if (objectType === undefined) return { codec: 'mp4a.40' };
  const frequencyIndex = read(4);
  const sampleRate = frequencyIndex === 15 ? read(24) : frequencyIndex === undefined ? undefined : AAC_SAMPLE_RATES[frequencyIndex];
  const channelConfiguration = read(4);
  const channels = channelConfiguration === undefined ? undefined : AAC_CHANNELS[channelConfiguration];
  return { codec: `mp4a.40.${objectType}`, ...(channels ? { channels } : {}), ...(sampleRate ? { sampleRate } : {}) };
}

/**
 * 'mp4a.40.<audio object type>' for MPEG-4 audio (RFC 6381 §3.3), 'mp4a.<oti>' otherwise; for
 * AAC also the channels and rate of its AudioSpecificConfig, which, unlike the sample entry's
 * fields (ffmpeg writes 2 channels for mono there), are what the decoder goes by.
 */
function readEsds(buf: Buffer, esds: Mp4Box): AudioConfig {
  const { payload } = readFullBoxHeader(buf, esds, 0);
  const es = readDescriptor(buf, payload, esds.end);
  if (!es || es.tag !== ES_DESCRIPTOR || es.body + 3 > es.end) throw new Error(`Invalid MP4: esds at offset ${esds.start} has no ES descriptor`);
  const esFlags = buf[es.body + 2] ?? 0;
  let at = es.body + 3;
  if (esFlags & 0x80) at += 2; // dependsOn_ES_ID
  if (esFlags & 0x40) at += 1 + (buf[at] ?? 0); // URL
  if (esFlags & 0x20) at += 2; // OCR_ES_Id
  const config = readDescriptor(buf, at, es.end);
  if (!config || config.tag !== DECODER_CONFIG_DESCRIPTOR || config.body + 13 > config.end) {
    throw new Error(`Invalid MP4: esds at offset ${esds.start} has no decoder configuration`);
  }
  const objectType = buf[config.body] ?? 0;
  if (objectType !== OBJECT_TYPE_MPEG4_AUDIO) return { codec: `mp4a.${hex2(objectType)}` };
  const specific = readDescriptor(buf, config.body + 13, config.end);
  if (!specific || specific.tag !== DECODER_SPECIFIC_INFO) return { codec: 'mp4a.40' };
  return readAudioSpecificConfig(buf, specific.body, specific.end);
}

/** 'avc1.PPCCLL' (RFC 6381 §3.3): profile, constraint flags and level from avcC. */
function avcCodec(buf: Buffer, entryType: string, avcC: Mp4Box): string {
  const at = payloadOf(avcC);
  need(avcC, at, 4);
  return `${entryType}.${hex2(buf[at + 1] ?? 0)}${hex2(buf[at + 2] ?? 0)}${hex2(buf[at + 3] ?? 0)}`;
}

// SampleEntry (§8.5.2): 6 reserved bytes and a data_reference_index, then the media-specific fields.
const SAMPLE_ENTRY_HEADER = 8;
// VisualSampleEntry: 16 bytes of zeros, width, height, resolutions, frame count, compressor name, depth.
const VISUAL_FIELDS = 70;
// AudioSampleEntry: version (QuickTime) + 6 reserved, channels, sample size, 4 zeros, 16.16 rate.
const AUDIO_FIELDS = 20;
// QuickTime sound description versions 1 and 2 append fields before the child boxes.
const QUICKTIME_AUDIO_EXTENSION: Record<number, number> = { 0: 0, 1: 16, 2: 36 };

function readSampleEntry(buf: Buffer, entry: Mp4Box, kind: InitTrack['kind']): Omit<InitTrack, 'trackId' | 'timescale' | 'kind'> {
  const fields = payloadOf(entry) + SAMPLE_ENTRY_HEADER;
  if (kind === 'video') {
    need(entry, fields, VISUAL_FIELDS);
    const width = buf.readUInt16BE(fields + 16);
    const height = buf.readUInt16BE(fields + 18);
    const boxes = readBoxes(buf, fields + VISUAL_FIELDS, entry.end, entry.type);
    const avcC = boxes.find((box) => box.type === 'avcC');
    return { codec: avcC ? avcCodec(buf, entry.type, avcC) : entry.type, width, height };
  }
  if (kind === 'audio') {
    need(entry, fields, AUDIO_FIELDS);
    const version = buf.readUInt16BE(fields);
    const extension = QUICKTIME_AUDIO_EXTENSION[version];
    if (extension === undefined) throw new Error(`Unsupported MP4: audio sample entry version ${version}`);
    const entryFields = { codec: entry.type, channels: buf.readUInt16BE(fields + 8), sampleRate: buf.readUInt32BE(fields + 16) >>> 16 };
    const boxes = readBoxes(buf, fields + AUDIO_FIELDS + extension, entry.end, entry.type);
    const esds = boxes.find((box) => box.type === 'esds');
    return esds && entry.type === 'mp4a' ? { ...entryFields, ...readEsds(buf, esds) } : entryFields;
  }
  return { codec: entry.type };
}

const moovOf = (buf: Buffer): Mp4Box => find(readBoxes(buf, 0, buf.length, 'file'), 'moov', 'the init segment');

/** Every track of an init segment (ftyp+moov), in file order. */
export function readInitTracks(init: Uint8Array): InitTrack[] {
  const buf = asBuffer(init);
  const tracks: InitTrack[] = [];
  for (const trak of readChildBoxes(buf, moovOf(buf))) {
    if (trak.type !== 'trak') continue;
    const trakBoxes = readChildBoxes(buf, trak);
    const trackId = readTrackId(buf, find(trakBoxes, 'tkhd', 'trak'));
    const mdia = readChildBoxes(buf, find(trakBoxes, 'mdia', 'trak'));
    const timescale = readTimescale(buf, find(mdia, 'mdhd', 'mdia'));
    const handler = readHandler(buf, find(mdia, 'hdlr', 'mdia'));
    const kind = handler === 'vide' ? 'video' : handler === 'soun' ? 'audio' : 'other';
    const stbl = find(readChildBoxes(buf, find(mdia, 'minf', 'mdia')), 'stbl', 'minf');
    const stsd = find(readChildBoxes(buf, stbl), 'stsd', 'stbl');
    // stsd: full box header and an entry count, then the sample entries; fragments use the first.
    const { payload } = readFullBoxHeader(buf, stsd, 4);
    const [entry] = readBoxes(buf, payload + 4, stsd.end, 'stsd');
    if (!entry) throw new Error(`Invalid MP4 init segment: track ${trackId} has no sample description`);
    tracks.push({ trackId, timescale, kind, ...readSampleEntry(buf, entry, kind) });
  }
  return tracks;
}

/** The trex defaults that fragments fall back on when neither tfhd nor trun carries a field. */
export function readTrackDefaults(init: Uint8Array): Map<number, TrackFragmentDefaults> {
  const buf = asBuffer(init);
  const defaults = new Map<number, TrackFragmentDefaults>();
  const mvex = readChildBoxes(buf, moovOf(buf)).find((box) => box.type === 'mvex');
  if (!mvex) return defaults;
  for (const trex of readChildBoxes(buf, mvex)) {
    if (trex.type !== 'trex') continue;
    // track_ID, default_sample_description_index, default_sample_duration, _size, _flags.
    const { payload } = readFullBoxHeader(buf, trex, 20);
    defaults.set(buf.readUInt32BE(payload), { sampleDuration: buf.readUInt32BE(payload + 8), sampleFlags: buf.readUInt32BE(payload + 16) });
  }
  return defaults;
}

// ---------------------------------------------------------------------------------------------
// Fragments

type TfhdDefaults = { trackId: number; sampleDuration?: number; sampleFlags?: number };

function readTfhd(buf: Buffer, tfhd: Mp4Box): TfhdDefaults {
  const { flags, payload } = readFullBoxHeader(buf, tfhd, 4);
  const trackId = buf.readUInt32BE(payload);
  let at = payload + 4;
  if (flags & TFHD_BASE_DATA_OFFSET) at += 8;
  if (flags & TFHD_SAMPLE_DESCRIPTION_INDEX) at += 4;
  const result: TfhdDefaults = { trackId };
  const optional = (flag: number): number | undefined => {
    if (!(flags & flag)) return undefined;
    need(tfhd, at, 4);
    const value = buf.readUInt32BE(at);
    at += 4;
    return value;
  };
  result.sampleDuration = optional(TFHD_DEFAULT_SAMPLE_DURATION);
  optional(TFHD_DEFAULT_SAMPLE_SIZE);
  result.sampleFlags = optional(TFHD_DEFAULT_SAMPLE_FLAGS);
  return result;
}

type TrunSummary = { sampleCount: number; durationTicks: number; firstSampleFlags?: number; firstCompositionOffset: number };

/** `defaultFlags` is only called for the flags of a first sample that has none of its own. */
function readTrun(buf: Buffer, trun: Mp4Box, defaultDuration: () => number, defaultFlags: (() => number) | null): TrunSummary {
  const { version, flags, payload } = readFullBoxHeader(buf, trun, 4);
  const sampleCount = buf.readUInt32BE(payload);
  let at = payload + 4;
  if (flags & TRUN_DATA_OFFSET) at += 4;
  let firstSampleFlags: number | undefined;
  if (flags & TRUN_FIRST_SAMPLE_FLAGS) {
    need(trun, at, 4);
    firstSampleFlags = buf.readUInt32BE(at);
    at += 4;
  }
  // Then one record per sample, holding the fields the flags announce, 4 bytes each, in this order.
  const present = PER_SAMPLE_FIELDS.filter((field) => flags & field);
  const recordSize = present.length * 4;
  need(trun, at, recordSize * sampleCount);
  const field = (sample: number, which: number) => at + sample * recordSize + present.indexOf(which) * 4;
  let durationTicks = 0;
  if (flags & TRUN_SAMPLE_DURATION) {
    for (let sample = 0; sample < sampleCount; sample++) durationTicks += buf.readUInt32BE(field(sample, TRUN_SAMPLE_DURATION));
  } else if (sampleCount > 0) {
    durationTicks = defaultDuration() * sampleCount;
  }
  if (sampleCount === 0) return { sampleCount, durationTicks, firstCompositionOffset: 0 };
  firstSampleFlags ??= flags & TRUN_SAMPLE_FLAGS ? buf.readUInt32BE(field(0, TRUN_SAMPLE_FLAGS)) : defaultFlags?.();
  let firstCompositionOffset = 0;
  if (flags & TRUN_SAMPLE_COMPOSITION_OFFSET) {
    // Unsigned in version 0, signed from version 1 on.
    const offsetAt = field(0, TRUN_SAMPLE_COMPOSITION_OFFSET);
    firstCompositionOffset = version === 0 ? buf.readUInt32BE(offsetAt) : buf.readInt32BE(offsetAt);
  }
  return { sampleCount, durationTicks, firstSampleFlags, firstCompositionOffset };
}

/**
 * The timing of each track fragment (traf) of a moof+mdat, in file order. Sample durations and
 * flags missing from trun and tfhd come from `defaults` (readTrackDefaults of the init segment);
 * a fragment that needs them when none are given is an error, not a guess.
 */
export function readFragmentTimings(fragment: Uint8Array, defaults?: ReadonlyMap<number, TrackFragmentDefaults>): FragmentTiming[] {
  const buf = asBuffer(fragment);
  const timings: FragmentTiming[] = [];
  for (const moof of readBoxes(buf, 0, buf.length, 'file')) {
    if (moof.type !== 'moof') continue;
    for (const traf of readChildBoxes(buf, moof)) {
      if (traf.type !== 'traf') continue;
      const boxes = readChildBoxes(buf, traf);
      const tfhd = readTfhd(buf, find(boxes, 'tfhd', 'traf'));
      const baseDecodeTime = readTfdt(buf, find(boxes, 'tfdt', `traf of track ${tfhd.trackId}`)).value;
      const fallback = (field: 'sampleDuration' | 'sampleFlags') => (): number => {
        const value = tfhd[field] ?? defaults?.get(tfhd.trackId)?.[field];
        if (value === undefined) {
          throw new Error(`Fragment of track ${tfhd.trackId} takes its ${field} from the init segment's trex: pass readTrackDefaults(init)`);
        }
        return value;
      };
      let sampleCount = 0;
      let durationTicks = 0;
      let firstSampleFlags: number | undefined;
      let firstCompositionOffset = 0;
      for (const trun of boxes) {
        if (trun.type !== 'trun') continue;
        // Only the fragment's very first sample has its flags looked at.
        const summary = readTrun(buf, trun, fallback('sampleDuration'), sampleCount === 0 ? fallback('sampleFlags') : null);
        if (sampleCount === 0) {
          firstSampleFlags = summary.firstSampleFlags;
          firstCompositionOffset = summary.firstCompositionOffset;
        }
        sampleCount += summary.sampleCount;
        durationTicks += summary.durationTicks;
      }
      const firstSampleIsSync = firstSampleFlags !== undefined && (firstSampleFlags & SAMPLE_IS_NON_SYNC) === 0;
      timings.push({
        trackId: tfhd.trackId,
        baseDecodeTime,
        firstPresentationTime: baseDecodeTime + BigInt(firstCompositionOffset),
        durationTicks,
        sampleCount,
        firstSampleIsSync,
      });
    }
  }
  return timings;
}
