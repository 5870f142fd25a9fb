import type { AssetInput } from '../../schemas/asset-settings';
import type { NewTrack } from './insert-tracks';

// The tracks a create request's inputs ask for (already validated by normalizeAssetSettings):
// subtitle and audio files as additional inputs, and generated captions on the first input, made
// from the primary audio track (none when the source has no audio: nothing to transcribe).
// A live recording's are its stream's generated_subtitles, transcribed again from the whole
// recording: Mux's `generated_live_final`.
export const inputTracks = (inputs: AssetInput[], primaryAudioTrackId: string | undefined, { liveRecording = false }: { liveRecording?: boolean } = {}): NewTrack[] => {
  const tracks: NewTrack[] = [];
  inputs.forEach((input, index) => {
    if (index === 0 || !input.url || !input.language_code) return;
    if (input.type === 'text') {
      tracks.push({ kind: 'text', url: input.url, languageCode: input.language_code, name: input.name, closedCaptions: input.closed_captions, passthrough: input.passthrough });
    } else if (input.type === 'audio') {
      tracks.push({ kind: 'audio', url: input.url, languageCode: input.language_code, name: input.name, passthrough: input.passthrough });
    }
  });
  if (primaryAudioTrackId) {
    for (const request of inputs[0]?.generated_subtitles ?? []) {
      tracks.push({
        kind: 'generated',
        sourceTrackId: primaryAudioTrackId,
        languageCode: request.language_code ?? 'en',
        name: request.name,
        passthrough: request.passthrough,
        ...(liveRecording && { textSource: 'generated_live_final' as const }),
      });
    }
  }
  return tracks;
};
