import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runCommand } from '../processes';
import { cameraArgs } from './inputs';

// The quality bench's content set: one clip of each kind a video platform is sent, because what
// adaptive rate control saves or costs depends on the picture. Real samples from ../shared/media
// where the folder is there; otherwise (and for kinds no sample covers) made with ffmpeg's lavfi,
// cached under bench/.work/ by recipe name.

export type ContentKind = 'animation' | 'phone camera' | 'slides' | 'grain' | 'dark';

/** Easy content must get cheaper at equal quality; hard content must never cost more than before. */
export const EASY_KINDS: readonly ContentKind[] = ['animation', 'slides'];

export type QualityContent = { kind: ContentKind; label: string; path: string; origin: 'sample' | 'lavfi' };

const SECONDS = 12;

const lavfiVideo = (source: string, output: string): string[] => [
  '-hide_banner', '-nostdin', '-v', 'error', '-y',
  '-f', 'lavfi', '-i', source,
  '-t', String(SECONDS),
  // Well above the ladder's quality (a camera's), so the bench measures the ladder's encode, and
  // not so far that decoding noise at near-lossless rates (200 Mb/s) dominates the encode times.
  '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '14', '-pix_fmt', 'yuv420p', '-g', '60',
  '-f', 'mp4', output,
];

type Recipe = { kind: ContentKind; label: string; sample?: string; file: string; args: (output: string) => string[] };

const RECIPES: Recipe[] = [
  {
    kind: 'animation',
    label: 'Big Buck Bunny 720p (sample) / testsrc2 1080p',
    sample: 'bbb_vp8_vorbis_720p_30s.webm',
    file: 'quality-animation-v2.mp4',
    args: (output) => lavfiVideo('testsrc2=size=1920x1080:rate=30', output),
  },
  {
    kind: 'phone camera',
    label: 'Android phone 720p (sample) / mildly noisy testsrc2 720p',
    sample: 'android_h264_aac_720p_5s.mp4',
    file: 'quality-phone-v2.mp4',
    args: (output) => lavfiVideo('testsrc2=size=1280x720:rate=30,noise=alls=8:allf=t', output),
  },
  {
    // A slide deck or screen recording: sharp text and edges that stay still for seconds.
    kind: 'slides',
    label: 'slides: testsrc stills held 3 s, 1080p',
    file: 'quality-slides-v2.mp4',
    args: (output) => lavfiVideo('testsrc=size=1920x1080:rate=1/3,fps=30', output),
  },
  {
    kind: 'grain',
    label: 'camera-like grain 1080p (the capacity input)',
    file: 'quality-grain-v1.mp4',
    args: (output) => cameraArgs(SECONDS, output),
  },
  {
    // A night scene: dark, low contrast, a little sensor noise (where banding shows first).
    kind: 'dark',
    label: 'dark low-contrast scene 1080p',
    file: 'quality-dark-v2.mp4',
    args: (output) => lavfiVideo('testsrc2=size=1920x1080:rate=30,eq=brightness=-0.32:contrast=0.35,noise=alls=5:allf=t', output),
  },
];

export const ensureQualityContent = async ({
  workDir,
  sharedMediaDir,
  log,
}: {
  workDir: string;
  sharedMediaDir: string;
  log: (line: string) => void;
}): Promise<QualityContent[]> => {
  mkdirSync(workDir, { recursive: true });
  const contents: QualityContent[] = [];
  for (const recipe of RECIPES) {
    const sample = recipe.sample === undefined ? undefined : path.join(sharedMediaDir, recipe.sample);
    if (sample !== undefined && existsSync(sample)) {
      contents.push({ kind: recipe.kind, label: recipe.label, path: sample, origin: 'sample' });
      continue;
    }
    const output = path.join(workDir, recipe.file);
    if (!existsSync(output)) {
      log(`quality: making the ${recipe.kind} clip`);
      const partial = `${output}.partial.mp4`;
      rmSync(partial, { force: true });
      const result = await runCommand('ffmpeg', recipe.args(partial), { timeoutMs: 300_000 });
      if (result.code !== 0) throw new Error(`ffmpeg could not make the ${recipe.kind} clip: ${result.stderr.slice(-400)}`);
      renameSync(partial, output);
    }
    contents.push({ kind: recipe.kind, label: recipe.label, path: output, origin: 'lavfi' });
  }
  return contents;
};

export const QUALITY_SECONDS = SECONDS;
