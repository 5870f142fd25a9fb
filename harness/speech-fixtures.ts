import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// Speech made at test time, for the captions tests and benchmark: a known script read by Debian's
// speech synthesisers (festival with the HTS voice `cmu_us_slt_arctic_hts`, fairly natural; and
// espeak-ng, robotic), put into a short video with a stretch of silence between its two halves.
// Needs `npm run setup:system -- speech-synthesis` (festival festvox-us-slt-hts espeak-ng).

const run = promisify(execFile);

export type SpeechVoice = 'festival-hts' | 'espeak-ng';

/** What the clip says, in two halves with silence between. */
export const SPEECH_SCRIPT = [
  'Good morning everyone, and thank you for joining us. Today we are going to talk about video uploads, ' +
    'automatic captions, and the new analytics dashboard. In this video, I will show you how to upload a file ' +
    'and share it with your friends.',
  'Our team worked hard on making playback faster for everyone. We are very happy to announce that the new ' +
    'version is now available to all of our customers. Thank you for watching, and we will see you again next week.',
] as const;

export type SpeechClip = {
  path: string;
  voice: SpeechVoice;
  durationSeconds: number;
  /** The script, as said. */
  reference: string;
  /** Where the silence between the halves is, in seconds from the start (at least; the voices pause around it too). */
  silence: { start: number; end: number };
};

const probeSeconds = async (ffprobe: string, file: string): Promise<number> => {
  const { stdout } = await run(ffprobe, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
  return Number(stdout.trim());
};

/** Reads `text` into a WAV with one of the voices. */
export const synthesizeSpeech = async ({ voice, text, outputPath }: { voice: SpeechVoice; text: string; outputPath: string }): Promise<void> => {
  if (voice === 'espeak-ng') {
    await run('espeak-ng', ['-v', 'en-us', '-w', outputPath, text]);
    return;
  }
  const textFile = `${outputPath}.txt`;
  await writeFile(textFile, `${text}\n`);
  try {
    await run('text2wave', ['-eval', '(voice_cmu_us_slt_arctic_hts)', textFile, '-o', outputPath]);
  } finally {
    await rm(textFile, { force: true });
  }
};

/**
 * The script read by `voice`, `silenceSeconds` of digital silence between its halves, as an
 * H.264 + AAC MP4 with a test-pattern video of the same length (or, with `video: false`, an M4A).
 */
export const makeSpeechClip = async ({
  voice,
  outputPath,
  silenceSeconds = 4,
  video = true,
  ffmpeg = 'ffmpeg',
  ffprobe = 'ffprobe',
}: {
  voice: SpeechVoice;
  outputPath: string;
  silenceSeconds?: number;
  video?: boolean;
  ffmpeg?: string;
  ffprobe?: string;
}): Promise<SpeechClip> => {
  const work = await mkdtemp(path.join(os.tmpdir(), 'keyframe-speech-'));
  try {
    const halves = SPEECH_SCRIPT.map((_, index) => path.join(work, `half-${index}.wav`));
    await Promise.all(SPEECH_SCRIPT.map((text, index) => synthesizeSpeech({ voice, text, outputPath: halves[index]! })));
    const [firstSeconds, secondSeconds] = await Promise.all(halves.map((half) => probeSeconds(ffprobe, half)));
    const durationSeconds = firstSeconds! + silenceSeconds + secondSeconds!;
    const mono = 'aresample=48000,aformat=sample_fmts=fltp:channel_layouts=mono';
    const args = [
      '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
      '-i', halves[0]!,
      '-f', 'lavfi', '-t', String(silenceSeconds), '-i', 'anullsrc=r=48000:cl=mono',
      '-i', halves[1]!,
      ...(video ? ['-f', 'lavfi', '-t', durationSeconds.toFixed(3), '-i', 'testsrc2=size=320x240:rate=30'] : []),
      '-filter_complex', `[0:a]${mono}[a0];[1:a]${mono}[a1];[2:a]${mono}[a2];[a0][a1][a2]concat=n=3:v=0:a=1[speech]`,
      ...(video ? ['-map', '3:v', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p'] : []),
      '-map', '[speech]', '-c:a', 'aac', '-b:a', '128k',
      '-movflags', '+faststart',
      outputPath,
    ];
    await run(ffmpeg, args);
    return {
      path: outputPath,
      voice,
      durationSeconds,
      reference: SPEECH_SCRIPT.join(' '),
      silence: { start: firstSeconds!, end: firstSeconds! + silenceSeconds },
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
};
