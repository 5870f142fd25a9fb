import type { AudioTrack } from '../../schemas/asset';
import type { AssetInput } from '../../schemas/asset-settings';
import { canonicalLanguageCode, languageName } from '../../schemas/track';

// Every audio stream of the source becomes an audio track, ready with the asset. The first one is
// the primary track, named by the first input (`name`, `language_code`) or, as Mux does, "Default"
// with no language; the others are named by their stream's tags.

export type SourceAudioTrackRow = {
  id: string;
  type: 'audio';
  status: 'ready';
  name: string;
  languageCode: string | null;
  primary: boolean;
  sourceStreamIndex: number;
  durationSeconds: number | null;
  maxChannels: number;
  maxChannelLayout: string | null;
};

export const sourceAudioTrackRows = ({
  probedTracks,
  titles,
  firstInput,
}: {
  /** The audio tracks assetMediaFields made from the probe, in stream order. */
  probedTracks: AudioTrack[];
  /** Each audio stream's title tag, in stream order. */
  titles: Array<string | null | undefined>;
  firstInput: Pick<AssetInput, 'name' | 'language_code'> | undefined;
}): SourceAudioTrackRow[] => {
  const names = new Set<string>();
  const unique = (name: string) => {
    let candidate = name;
    for (let n = 2; names.has(candidate); n++) candidate = `${name} (${n})`;
    names.add(candidate);
    return candidate;
  };
  return probedTracks.map((track, position) => {
    const primary = position === 0;
    const languageCode = (primary && canonicalLanguageCode(firstInput?.language_code)) || canonicalLanguageCode(track.language_code) || null;
    // Mux names an unnamed primary track after the language the input gave, else "Default".
    const name = primary
      ? firstInput?.name?.trim() || languageName(firstInput?.language_code) || 'Default'
      : titles[position]?.trim() || languageName(languageCode) || `Audio ${position + 1}`;
    return {
      id: track.id,
      type: 'audio',
      status: 'ready',
      name: unique(name),
      languageCode,
      primary,
      sourceStreamIndex: position,
      durationSeconds: track.duration ?? null,
      maxChannels: track.max_channels,
      maxChannelLayout: track.max_channel_layout ?? null,
    };
  });
};
