import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { buildClipArgs } from '../../media/clips/clip-args';
import { sourceColourOf } from '../../media/colour/sdr-conversion';
import type { MediaProbe } from '../../media/ffprobe';
import { MediaInputError, summariseToolError } from '../../media/media-errors';
import { primaryAudio, primaryVideo } from '../../media/media-summary';
import { runProcess } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';
import type { AssetInput } from '../../schemas/asset-settings';
import { generateId } from '../../utils/ids';
import { sourceInput } from '../inputs/source-input';

const CLIP_TIMEOUT_MS = 6 * 60 * 60 * 1000;
const CLIP_URL = /^mux:\/\/assets\/([A-Za-z0-9]+)$/;

// Writes a clip's own source (its kept source from then on, so a clip of this clip cuts from it):
// the range of the source asset's kept source file, re-encoded frame-accurately (clip-args.ts).
// Written under a temporary name and renamed, so an interrupted cut is simply done again.
export const cutClip = async ({ inputsJson, sourcePath, signal }: { inputsJson: string; sourcePath: string; signal: AbortSignal }): Promise<void> => {
  const [input] = JSON.parse(inputsJson) as AssetInput[];
  const sourceAssetId = CLIP_URL.exec(input?.url ?? '')?.[1];
  if (!sourceAssetId) throw new MediaInputError('The clip names no source asset');
  const source = await getDb().asset.findUnique({ where: { id: sourceAssetId }, select: { status: true, probeJson: true } });
  if (!source || source.status !== 'ready' || !source.probeJson) throw new MediaInputError(`The source asset ${sourceAssetId} is no longer available`);
  const probe = JSON.parse(source.probeJson) as MediaProbe;
  const video = primaryVideo(probe);
  const env = getEnv();
  const from = await sourceInput(sourceAssetId);
  const temporary = path.join(path.dirname(sourcePath), `.clip-${generateId()}.mp4.tmp`);
  await mkdir(path.dirname(sourcePath), { recursive: true });
  try {
    const result = await runProcess({
      command: env.ffmpegPath,
      args: buildClipArgs({
        input: from,
        output: temporary,
        startSeconds: input?.start_time ?? 0,
        endSeconds: input?.end_time ?? probe.durationSeconds ?? 0,
        hasVideo: video !== null,
        hasAudio: primaryAudio(probe) !== null,
        highDynamicRange: video !== null && sourceColourOf(video) !== null,
      }),
      signal,
      timeoutMs: CLIP_TIMEOUT_MS,
      children: childProcesses(),
    });
    if (result.aborted) throw signal.reason ?? new Error('aborted');
    if (result.exitCode !== 0) {
      throw new MediaInputError(`Cutting the clip failed: ${summariseToolError(result.stderr, from) ?? `ffmpeg exited with ${result.exitCode}`}`);
    }
    await rename(temporary, sourcePath);
  } finally {
    await rm(temporary, { force: true });
  }
};
