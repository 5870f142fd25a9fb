import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { withAssetCancellation } from '../../jobs/signals';
import { resolveCaptionLanguage } from '../../media/captions/caption-language';
import { SpeechEngineUnavailableError } from '../../media/captions/speech-recognizer';
import { audioTrackSourcePath, removeAssetFiles, trackDirectory } from '../../storage/asset-files';
import { captionsRecognizer } from '../captions/captions-recognizer';
import { transcribeCaptions } from '../captions/transcribe-captions';
import { sourceInput } from '../inputs/source-input';
import { isStoredHereOrShared } from '../storage/shared-storage';
import { removeTrackFiles } from './manage-tracks';
import { settleTrackErrored, settleTrackReady } from './settle-track';
import { storeTextTrackCues } from './store-text-track';

// A generated text track (`generated_subtitles`): the audio track it names is transcribed by the
// captions engine (lib/services/captions) and stored like any text track, as WebVTT plus a plain
// transcript. What cannot succeed on a retry (a language the engine does not know, the audio track
// gone, the engine not installed) errors the track at once; the asset is never affected.

type AudioSource = { input: string; audioStreamIndex: number };

// A source stream is read from the asset's source (which may still be downloading); an added audio
// track from the file its preparation downloaded.
const audioSourceOf = async (assetId: string, audio: { id: string; sourceStreamIndex: number | null }): Promise<AudioSource | null> => {
  if (audio.sourceStreamIndex !== null) return { input: await sourceInput(assetId), audioStreamIndex: audio.sourceStreamIndex };
  const file = audioTrackSourcePath(getEnv().dataDir, assetId, audio.id);
  return (await isStoredHereOrShared(file)) ? { input: file, audioStreamIndex: 0 } : null;
};

const errored = (trackId: string, message: string) => settleTrackErrored(trackId, { messages: [message] });

export const generateCaptions = async ({ trackId, signal, log }: { trackId: string; signal: AbortSignal; log: Logger }): Promise<void> => {
  const track = await getDb().track.findUnique({
    where: { id: trackId },
    select: { id: true, assetId: true, type: true, primary: true, status: true, languageCode: true, sourceTrackId: true },
  });
  if (!track || track.status !== 'preparing') return;
  const { assetId } = track;
  const recognizer = captionsRecognizer();

  const language = resolveCaptionLanguage(track.languageCode ?? 'auto', recognizer.languages);
  if (!language.ok) return void (await errored(trackId, language.message));

  const audio = track.sourceTrackId
    ? await getDb().track.findFirst({ where: { id: track.sourceTrackId, assetId, type: 'audio' }, select: { id: true, status: true, sourceStreamIndex: true } })
    : null;
  if (!audio) return void (await errored(trackId, 'The audio track to transcribe no longer exists'));
  if (audio.status !== 'ready') return void (await errored(trackId, `The audio track to transcribe is ${audio.status}, not ready`));

  const dataDir = getEnv().dataDir;
  const startedAt = performance.now();
  try {
    const transcript = await withAssetCancellation(assetId, signal, async (cancel) => {
      const source = await audioSourceOf(assetId, audio);
      if (!source) throw new Error(`the audio track's file (${audio.id}) is not stored`);
      return transcribeCaptions({ ffmpegPath: getEnv().ffmpegPath, ...source, workDir: trackDirectory(dataDir, assetId, trackId), recognizer, signal: cancel });
    });
    await storeTextTrackCues({ assetId, trackId, cues: transcript.cues });
    if (!(await settleTrackReady(trackId, { languageCode: language.languageCode }))) {
      await removeTrackFiles(assetId, track);
      return;
    }
    log.info(
      { assetId, engine: recognizer.name, words: transcript.words.length, cues: transcript.cues.length, audioSeconds: transcript.audioSeconds, ms: Math.round(performance.now() - startedAt) },
      'captions generated',
    );
  } catch (error) {
    if (error instanceof SpeechEngineUnavailableError) return void (await errored(trackId, error.message));
    // Deleted meanwhile (the asset's deletion also stopped the engine): nothing to retry, and
    // the folder this job may have recreated goes too.
    if (!(await getDb().asset.findUnique({ where: { id: assetId }, select: { id: true } }))) return removeAssetFiles(dataDir, assetId);
    if (!(await getDb().track.findUnique({ where: { id: trackId }, select: { id: true } }))) return removeTrackFiles(assetId, track);
    throw error;
  }
};
