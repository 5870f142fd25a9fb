// ffmpeg arguments that turn one audio stream of a file into what speech engines read: 16 kHz,
// mono, 16-bit PCM WAV. Samples count from the stream's first one, as the HLS audio rendition
// does (encode-args.ts), so recognised times are on the asset's timeline.

export const SPEECH_SAMPLE_RATE = 16_000;
/** Bytes per second of the WAV (16-bit mono), for its duration from its size. */
export const SPEECH_BYTES_PER_SECOND = SPEECH_SAMPLE_RATE * 2;
/** What speech engines read: mono 16-bit PCM at SPEECH_SAMPLE_RATE (the container is the caller's). */
export const SPEECH_PCM_ARGS = ['-ac', '1', '-ar', String(SPEECH_SAMPLE_RATE), '-c:a', 'pcm_s16le'] as const;
/** The canonical header ffmpeg writes with metadata dropped and bitexact on. */
export const WAV_HEADER_BYTES = 44;

export const buildSpeechAudioArgs = ({
  input,
  audioStreamIndex,
  outputPath,
}: {
  input: string;
  /** Which audio stream (0-based among the file's audio streams). */
  audioStreamIndex: number;
  outputPath: string;
}): string[] => [
  '-hide_banner',
  '-nostdin',
  '-loglevel',
  'error',
  '-i',
  input,
  '-map',
  `0:a:${audioStreamIndex}`,
  '-vn',
  '-sn',
  '-dn',
  // No LIST chunk: engines that skip a fixed 44-byte header would read one as audio.
  '-map_metadata',
  '-1',
  '-fflags',
  '+bitexact',
  '-af',
  `aresample=${SPEECH_SAMPLE_RATE},asetpts=N/SR/TB`,
  ...SPEECH_PCM_ARGS,
  '-f',
  'wav',
  '-y',
  outputPath,
];

export const speechAudioSeconds = (wavBytes: number): number => Math.max(0, wavBytes - WAV_HEADER_BYTES) / SPEECH_BYTES_PER_SECOND;
