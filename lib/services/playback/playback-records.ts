import { forgetAtPlaybackWorkers } from '../../coordination/playback-worker-caches';
import { getDb } from '../../db/client';
import { trackOrderBy } from '../../schemas/track';
import type { LookupCache } from '../../utils/lookup-cache';
import { compareTracks } from '../../schemas/track';
import type { PlaybackPlan } from './playback-plan';
import { playbackState } from './playback-state';

// What every playback request needs to know about its playback ID, kept in memory so a request for
// a cached segment or playlist touches no database. Only playable (ready) assets are kept: an asset
// still preparing is read again on each request, so it plays as soon as it turns ready. Whatever
// makes a kept record wrong drops it here at once: deleting the asset or the playback ID, or the
// asset erroring after it was ready. The playback workers' copies of public playlists are dropped
// with it, before the returned promise resolves.

/** A ready audio or text track, as playback lists and serves it. */
export type PlaybackTrack = {
  id: string;
  type: 'audio' | 'text';
  name: string;
  languageCode: string | null;
  primary: boolean;
  /** Audio from the source: which of its audio streams; null for an added file. */
  sourceStreamIndex: number | null;
  durationSeconds: number | null;
  maxChannels: number | null;
  closedCaptions: boolean;
  textSource: string | null;
};

export type PlaybackRecord = {
  playbackId: string;
  policy: string;
  assetId: string;
  status: string;
  readyAt: Date | null;
  plan: PlaybackPlan | null;
  /** Ready audio and text tracks, in creation order (the primary audio track first). */
  tracks: PlaybackTrack[];
};

export const playbackTrackSelect = {
  id: true,
  type: true,
  name: true,
  languageCode: true,
  primary: true,
  sourceStreamIndex: true,
  durationSeconds: true,
  maxChannels: true,
  closedCaptions: true,
  textSource: true,
  createdAt: true,
} as const;

declare module './playback-state' {
  interface PlaybackState {
    /** By playback ID. */
    playbackRecords: LookupCache<PlaybackRecord>;
  }
}

const records = () => playbackState().playbackRecords;

export const findPlaybackRecord = (playbackId: string): Promise<PlaybackRecord | null> =>
  records().get(
    playbackId,
    async () => {
      const found = await getDb().playbackId.findUnique({
        where: { id: playbackId },
        select: {
          policy: true,
          asset: {
            select: {
              id: true,
              status: true,
              readyAt: true,
              planJson: true,
              tracks: { where: { status: 'ready' }, orderBy: trackOrderBy, select: playbackTrackSelect },
            },
          },
        },
      });
      if (!found) return null;
      const { asset } = found;
      return {
        playbackId,
        policy: found.policy,
        assetId: asset.id,
        status: asset.status,
        readyAt: asset.readyAt,
        plan: asset.planJson ? (JSON.parse(asset.planJson) as PlaybackPlan) : null,
        tracks: [...asset.tracks]
          .sort(compareTracks)
          .map(({ createdAt: _createdAt, ...track }) => ({ ...track, type: track.type === 'text' ? ('text' as const) : ('audio' as const) })),
      };
    },
    (record) => record.status === 'ready' && record.plan !== null,
  );

/** The record when it is already in memory (a playable asset looked up recently), else undefined. */
export const peekPlaybackRecord = (playbackId: string): PlaybackRecord | undefined => records().peek(playbackId);

export const forgetPlaybackId = (playbackId: string): Promise<void> => {
  records().forget(playbackId);
  return forgetAtPlaybackWorkers({ playbackId });
};

export const forgetAssetPlayback = (assetId: string): Promise<void> => {
  records().forgetWhere((record) => record.assetId === assetId);
  return forgetAtPlaybackWorkers({ assetId });
};
