import { getEnv } from '../../env';
import { renderTranscript, renderWebVtt, type Cue } from '../../media/text/cues';
import { publishFile } from '../../storage/atomic-file';
import { textTrackFilePath } from '../../storage/asset-files';
import { shareFile } from '../storage/shared-storage';

/**
 * A text track's content as every text track keeps it: WebVTT plus a one-cue-per-line transcript,
 * each published whole on this node and put in shared storage (S3) for the others.
 */
export const storeTextTrackCues = async ({ assetId, trackId, cues }: { assetId: string; trackId: string; cues: Cue[] }): Promise<void> => {
  const { dataDir } = getEnv();
  for (const [extension, text] of [['vtt', renderWebVtt(cues)], ['txt', renderTranscript(cues)]] as const) {
    const filePath = textTrackFilePath(dataDir, assetId, trackId, extension);
    const bytes = Buffer.from(text, 'utf8');
    await publishFile(filePath, bytes);
    await shareFile(filePath, bytes);
  }
};
