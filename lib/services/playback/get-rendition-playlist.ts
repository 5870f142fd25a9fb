import { notFound } from '../../http/api-error';
import { AUDIO_SEGMENT_SECONDS } from '../../media/hls/audio-plan';
import { renderMediaPlaylist } from '../../media/hls/playlists';
import { AUDIO_RENDITION, readAudioSegmentCount } from './audio-track';
import type { PlaybackPlan } from './playback-plan';
import { resolvePlayback, withProof, type PlaybackAccess, type PlaybackText } from './resolve-playback';

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

// Once the audio encode has finished, the real fragment count replaces the planned one (they can
// differ by one when the encoder's priming pushes a last sliver into a fragment of its own).
const audioSegmentDurations = async (assetId: string, plan: PlaybackPlan): Promise<number[]> => {
  const planned = plan.audio?.segmentDurations ?? [];
  const actualCount = await readAudioSegmentCount(assetId);
  if (actualCount === null || actualCount === planned.length || !plan.audio) return planned;
  const full = Array.from({ length: actualCount - 1 }, () => round6(AUDIO_SEGMENT_SECONDS));
  return [...full, round6(Math.max(0.001, plan.audio.duration - AUDIO_SEGMENT_SECONDS * (actualCount - 1)))];
};

// GET /{PLAYBACK_ID}/{rendition}.m3u8
export const getRenditionPlaylist = async ({
  playbackId,
  rendition,
  access,
}: {
  playbackId: string;
  rendition: string;
  access: PlaybackAccess;
}): Promise<PlaybackText> => {
  const { assetId, plan, proof, cacheScope, readyAt } = await resolvePlayback({ playbackId, access });
  const reply = (text: string): PlaybackText => ({ text, cacheScope, lastModified: readyAt });
  if (rendition === AUDIO_RENDITION && plan.audio) {
    const durations = await audioSegmentDurations(assetId, plan);
    return reply(renderMediaPlaylist({
      initUri: withProof(`${AUDIO_RENDITION}/init.mp4`, proof),
      segments: durations.map((duration, index) => ({ duration, uri: withProof(`${AUDIO_RENDITION}/${index}.m4s`, proof) })),
    }));
  }
  const rung = plan.rungs.find((candidate) => candidate.name === rendition);
  if (!rung || !plan.video) throw notFound('Rendition');
  return reply(
    renderMediaPlaylist({
      initUri: withProof(`${rung.name}/init.mp4`, proof),
      segments: plan.video.segments.map((segment, index) => ({
        duration: segment.duration,
        uri: withProof(`${rung.name}/${index}.m4s`, proof),
      })),
    }),
  );
};
