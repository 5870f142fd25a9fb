import { forgetAssetPlayback } from '../playback/playback-records';
import { forgetDeletedAudioTracks } from '../playback/forget-deleted-audio-tracks';
import { tellOtherNodes } from '../../coordination/tell-other-nodes';

/**
 * After a track became ready or errored, was renamed or deleted: every node forgets the asset's
 * playback record (it carries the tracks playlists list) before the change is answered, and stops
 * encoding a deleted audio track.
 */
export const announceTracksChanged = async (assetId: string): Promise<void> => {
  await forgetAssetPlayback(assetId);
  await forgetDeletedAudioTracks(assetId);
  await tellOtherNodes({ type: 'tracks-changed', assetId });
};
