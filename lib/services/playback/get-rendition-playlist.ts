import type { LRUCache } from 'lru-cache';
import { ApiError, notFound } from '../../errors/api-error';
import { clipRangeKey, segmentsInRange, type ClipRange } from '../../media/hls/instant-clip';
import { requestedClipRange } from './instant-clips';
import { AUDIO_SEGMENT_SECONDS } from '../../media/hls/audio-plan';
import { renderMediaPlaylist } from '../../media/hls/playlists';
import { INIT_FILE, renditionFileUri, segmentFileName } from '../../media/names';
import { readAudioSegmentCount } from './audio-track';
import { audioRenditionOf, type AudioRendition } from './audio-renditions';
import type { PlaybackPlan } from './playback-plan';
import { playbackState } from './playback-state';
import { peekRendered, renderOnce } from './rendered-playlists';
import { peekPublicPlayback, resolvePlayback, withProof, type PlaybackTarget, type PlaybackText, type RenditionPlaylistRequest } from './resolve-playback';

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

// An audio encode's fragment count, once it has finished, so a finished audio playlist costs no
// file read.
declare module './playback-state' {
  interface PlaybackState {
    finishedAudioCounts: LRUCache<string, number>;
  }
}

const finishedAudioCounts = () => playbackState().finishedAudioCounts;

const audioSegmentCount = async (assetId: string, rendition: string): Promise<number | null> => {
  const key = `${assetId}/${rendition}`;
  const known = finishedAudioCounts().get(key);
  if (known !== undefined) return known;
  const count = await readAudioSegmentCount(assetId, rendition);
  if (count !== null) finishedAudioCounts().set(key, count);
  return count;
};

// Once the audio encode has finished, the real fragment count replaces the planned one (they can
// differ by one when the encoder's priming pushes a last sliver into a fragment of its own).
const audioSegmentDurations = (audio: AudioRendition, actualCount: number | null): number[] => {
  const planned = audio.segmentDurations;
  if (actualCount === null || actualCount === planned.length) return planned;
  const full = Array.from({ length: actualCount - 1 }, () => round6(AUDIO_SEGMENT_SECONDS));
  return [...full, round6(Math.max(0.001, audio.duration - AUDIO_SEGMENT_SECONDS * (actualCount - 1)))];
};

// GET /{PLAYBACK_ID}/{rendition}.m3u8
export const getRenditionPlaylist = async (request: RenditionPlaylistRequest): Promise<PlaybackText> => {
  const { rendition } = request;
  const target = await resolvePlayback(request);
  const { assetId, plan, proof, cacheability, readyAt } = target;
  const range = requestedClipRange(target, request);
  const reply = (text: string): PlaybackText => ({ text, cacheability, lastModified: readyAt });
  // Checked before the rendered playlists: a deleted track's may still be kept there.
  if (!isRenditionOf(target, rendition)) throw notFound('Rendition');
  const audio = audioRenditionOf(target, rendition);
  const audioCount = audio ? await audioSegmentCount(assetId, audio.name) : null;
  const render = () =>
    audio ? renderAudioPlaylist(audio.name, audioSegmentDurations(audio, audioCount), proof, range) : renderVideoPlaylist(plan, rendition, proof, range);
  // An audio playlist still being encoded may change; it is rendered each time until then.
  if (audio && audioCount === null) return reply(render());
  return reply(renderOnce(mediaPlaylistKey(assetId, rendition, proof, range), render));
};

const mediaPlaylistKey = (assetId: string, rendition: string, proof: string | null, range: ClipRange | null = null) =>
  `media|${assetId}|${rendition}|${proof ?? ''}|${clipRangeKey(range)}`;

// Instant clips list only the segments overlapping the range (segment granularity, as Mux), with
// their own URIs, so they are the very segments of the whole asset.
const inRange = <T>(segments: T[], durations: number[], range: ClipRange | null): T[] => {
  if (!range) return segments;
  const { from, to } = segmentsInRange(durations, range);
  if (to === from) throw new ApiError('invalid_parameters', 'asset_start_time/asset_end_time: the range is outside the asset');
  return segments.slice(from, to);
};

/** A public rendition playlist already rendered, answered without waiting for anything; else null. */
export const storedRenditionPlaylist = ({ playbackId, rendition }: { playbackId: string; rendition: string }): PlaybackText | null => {
  const target = peekPublicPlayback(playbackId);
  if (!target) return null;
  if (!isRenditionOf(target, rendition)) return null;
  const text = peekRendered(mediaPlaylistKey(target.assetId, rendition, null));
  return text === undefined ? null : { text, cacheability: target.cacheability, lastModified: target.readyAt };
};

// One of the asset's renditions now: a rung of its ladder, or the audio of a ready track. A playlist
// rendered earlier is kept by name, so it outlives a track deleted since.
const isRenditionOf = (target: PlaybackTarget, rendition: string): boolean =>
  audioRenditionOf(target, rendition) !== null || (target.plan.video !== null && target.plan.rungs.some((rung) => rung.name === rendition));

const renderAudioPlaylist = (name: string, durations: number[], proof: string | null, range: ClipRange | null): string =>
  renderMediaPlaylist({
    initUri: withProof(renditionFileUri(name, INIT_FILE), proof),
    segments: inRange(
      durations.map((duration, index) => ({ duration, uri: withProof(renditionFileUri(name, segmentFileName(index)), proof) })),
      durations,
      range,
    ),
  });

const renderVideoPlaylist = (plan: PlaybackPlan, rendition: string, proof: string | null, range: ClipRange | null): string => {
  const rung = plan.rungs.find((candidate) => candidate.name === rendition);
  if (!rung || !plan.video) throw notFound('Rendition');
  const segments = plan.video.segments.map((segment, index) => ({ duration: segment.duration, uri: withProof(renditionFileUri(rung.name, segmentFileName(index)), proof) }));
  return renderMediaPlaylist({
    initUri: withProof(renditionFileUri(rung.name, INIT_FILE), proof),
    segments: inRange(segments, plan.video.segments.map((segment) => segment.duration), range),
  });
};
