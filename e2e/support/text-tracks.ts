import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MediaServer } from '../../harness/media-server';

// Subtitle files with known cue times, written by the test and served over HTTP like any input
// URL, for the text track specs. Cue times fit the segment plan of the fixtures they go with
// (2 s, 2 s, 4 s, 4 s…): a cue near the start, one across the 2 s boundary, one after it, one in
// the middle of a 10 s asset and one past its 8 s boundary.

export type KnownCue = { start: number; end: number; text: string };

export const ENGLISH_CUES: KnownCue[] = [
  { start: 0.4, end: 1.4, text: 'Hello there' },
  { start: 1.8, end: 2.4, text: 'Across the first boundary' },
  { start: 3.0, end: 3.6, text: 'Past the first boundary' },
  { start: 4.9, end: 5.6, text: 'In the middle' },
  { start: 8.3, end: 9.2, text: 'Past the third boundary' },
];

// BOM, CRLF, a header line, STYLE/NOTE/REGION blocks, an id, settings, markup, minutes without hours.
const ENGLISH_VTT = [
  '\uFEFFWEBVTT - English',
  'Kind: captions',
  '',
  'REGION',
  'id:bottom width:40%',
  '',
  'STYLE',
  '::cue { color: yellow }',
  '',
  'NOTE written by the test',
  '',
  'hello',
  '00:00.400 --> 00:01.400 line:0 align:start region:bottom',
  'Hello <i>there</i>',
  '',
  '00:00:01.800 --> 00:00:02.400',
  'Across the first boundary',
  '',
  '00:00:03.000 --> 00:00:03.600',
  'Past the first boundary',
  '',
  '00:00:04.900 --> 00:00:05.600',
  'In the middle',
  '',
  '00:00:08.300 --> 00:00:09.200',
  'Past the third boundary',
  '',
].join('\r\n');

/** What Keyframe stores for ENGLISH_VTT: normalised WebVTT, and its transcript. */
export const ENGLISH_STORED_VTT = [
  'WEBVTT',
  '',
  'hello',
  '00:00:00.400 --> 00:00:01.400 line:0 align:start',
  'Hello <i>there</i>',
  '',
  '00:00:01.800 --> 00:00:02.400',
  'Across the first boundary',
  '',
  '00:00:03.000 --> 00:00:03.600',
  'Past the first boundary',
  '',
  '00:00:04.900 --> 00:00:05.600',
  'In the middle',
  '',
  '00:00:08.300 --> 00:00:09.200',
  'Past the third boundary',
  '',
].join('\n');
export const ENGLISH_TRANSCRIPT = 'Hello there\nAcross the first boundary\nPast the first boundary\nIn the middle\nPast the third boundary\n';

// Counters, `,` milliseconds, <font> (stripped), <b>/<u> (kept), a stray `&` and `<` (escaped),
// cues out of order.
const FRENCH_SRT = [
  '2',
  '00:00:02,500 --> 00:00:03,250',
  'Ça < va ?',
  '',
  '1',
  '00:00:00,250 --> 00:00:01,000',
  '<font color="#ffff00">Bonjour</font> <b>&</b> <u>bienvenue</u>',
  '',
].join('\n');

export const FRENCH_STORED_VTT = [
  'WEBVTT',
  '',
  '00:00:00.250 --> 00:00:01.000',
  'Bonjour <b>&amp;</b> <u>bienvenue</u>',
  '',
  '00:00:02.500 --> 00:00:03.250',
  'Ça &lt; va ?',
  '',
].join('\n');
export const FRENCH_TRANSCRIPT = 'Bonjour & bienvenue\nÇa < va ?\n';

export const SUBTITLE_FILES = {
  englishVtt: { file: 'english.vtt', content: ENGLISH_VTT },
  // Served with a .txt name: the format is told by the content.
  frenchSrt: { file: 'french-subtitles.txt', content: FRENCH_SRT },
  /** A bad timestamp on line 6. */
  malformed: { file: 'malformed.srt', content: '1\n00:00:01,000 --> 00:00:02,000\nOne\n\n2\n00:00:03,000 --> 00:00:0x,000\nTwo\n' },
  /** A WebVTT header and nothing else. */
  noCues: { file: 'no-cues.vtt', content: 'WEBVTT\n\nNOTE nothing to show\n' },
  /** Zero bytes. */
  empty: { file: 'empty.vtt', content: '' },
  /** A cue that ends before it starts, on line 3. */
  reversed: { file: 'reversed.vtt', content: 'WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nBackwards\n' },
} as const;

export type SubtitleFileName = keyof typeof SUBTITLE_FILES;

/** Writes the subtitle files to a temp folder and serves it (plus `extraRoots`) over HTTP. */
export const startSubtitleServer = async (extraRoots: string[] = []): Promise<{ media: MediaServer; url: (name: SubtitleFileName) => string; close: () => Promise<void> }> => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kf-subtitles-'));
  await Promise.all(Object.values(SUBTITLE_FILES).map(({ file, content }) => writeFile(path.join(dir, file), content)));
  const media = await MediaServer.start({ roots: [dir, ...extraRoots] });
  return {
    media,
    url: (name) => media.fileUrl(SUBTITLE_FILES[name].file),
    close: async () => {
      await media.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};
