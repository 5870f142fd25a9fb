import { getDb } from '../../db/client';
import { trackOrderBy } from '../../schemas/track';
import { audioRenditionName } from '../../media/names';
import { ensureAudioEncoding } from './audio-track';
import { audioRenditionsOf } from './audio-renditions';
import type { PlaybackPlan } from './playback-plan';
import { playbackTrackSelect, type PlaybackTrack } from './playback-records';

// Queues the encodes of an asset's audio renditions as idle work, so they are usually complete
// before a viewer needs them: right after the asset is ready, every audio stream of the source;
// once an added audio file is ready, that track (`trackIds`). A request that arrives first joins
// the same encode (and makes it as urgent as that viewer needs it).
//
// The job ends once the encodes are queued, not once they are done: under load the encoder
// scheduler may keep them waiting behind viewers' segments, and an ingest worker slot must not wait
// with them. Nothing is lost if the process stops first: a viewer's request starts an encode again,
// and a failure is logged and retried by the next request for a segment not written yet.
export const encodeAudioTracks = async ({ assetId, trackIds }: { assetId: string; trackIds?: string[] }): Promise<void> => {
  const asset = await getDb().asset.findUnique({
    where: { id: assetId },
    select: { planJson: true, tracks: { where: { type: 'audio', status: 'ready' }, orderBy: trackOrderBy, select: playbackTrackSelect } },
  });
  if (!asset?.planJson) return;
  const plan = JSON.parse(asset.planJson) as PlaybackPlan;
  const tracks: PlaybackTrack[] = asset.tracks.map((track) => ({ ...track, type: 'audio' as const }));
  const wanted = trackIds ? new Set(tracks.filter((track) => trackIds.includes(track.id)).map(audioRenditionName)) : null;
  const renditions = audioRenditionsOf({ plan, tracks }).filter((rendition) =>
    wanted ? wanted.has(rendition.name) : rendition.input.kind === 'source',
  );
  for (const rendition of renditions) await ensureAudioEncoding({ assetId, rendition });
};
