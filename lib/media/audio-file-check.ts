import type { MediaProbe } from './ffprobe';
import { summariseToolError } from './media-errors';
import { parseDecodeProgress } from './verify-decodable';

// An audio file added to an asset as another audio track: it must hold an audio stream, and that
// stream must decode. Only what playback will use is decoded (up to the asset's duration), so a
// long file added to a short video costs no more than the video's length of audio.

export type AudioFileVerdict = { ok: true } | { ok: false; reason: string };

/** The first audio stream of a probed file, or why the file cannot be an audio track. */
export const checkAudioFileProbe = (probe: MediaProbe): AudioFileVerdict => {
  const audio = probe.audio[0];
  if (!audio) {
    const what = probe.video.some((stream) => !stream.isAttachedPicture) ? 'only video' : 'no audio';
    return { ok: false, reason: `The file contains ${what}: an audio track needs an audio stream` };
  }
  if (!(audio.sampleRate > 0) || !(audio.channels > 0)) return { ok: false, reason: 'The file’s audio stream has no sample rate or channels' };
  return { ok: true };
};

/** Decodes the first audio stream to nowhere, reading at most `durationSeconds` of it. */
export const buildAudioDecodeArgs = ({ inputPath, durationSeconds }: { inputPath: string; durationSeconds: number }): string[] => [
  '-hide_banner',
  '-nostdin',
  '-v',
  'error',
  '-t',
  durationSeconds.toFixed(6),
  '-i',
  inputPath,
  '-map',
  '0:a:0',
  '-f',
  'null',
  '-progress',
  'pipe:1',
  '-nostats',
  '-',
];

// The demuxer's word for sample offsets beyond the end of the file: a download cut short.
const TRUNCATION_MARKER = 'partial file';

/** Whether the decode of buildAudioDecodeArgs produced audio. Glitches a decoder skips over are tolerated, as players do; a file cut short is not. */
export const checkAudioDecode = ({
  exitCode,
  stdout,
  stderr,
  inputPath,
}: {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  inputPath: string;
}): AudioFileVerdict => {
  const detail = summariseToolError(stderr, inputPath);
  const suffix = detail ? ` (ffmpeg: ${detail})` : '';
  if (exitCode !== 0) return { ok: false, reason: `The file’s audio could not be decoded${suffix}` };
  if (stderr.includes(TRUNCATION_MARKER)) return { ok: false, reason: `The file is truncated: its data ends before the audio it declares${suffix}` };
  if (parseDecodeProgress(stdout).outTimeMicros <= 0) return { ok: false, reason: `No audio could be decoded from the file${suffix}` };
  return { ok: true };
};
