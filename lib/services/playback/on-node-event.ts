import type { NodeEventHandlers } from '../../coordination/node-event';
import { getEnv } from '../../env';
import { assetDirectory } from '../../storage/asset-files';
import { forgetDeletedAudioTracks } from './forget-deleted-audio-tracks';
import { forgetAssetPlayback, forgetPlaybackId } from './playback-records';
import { segmentCache } from './runtime';

// What another node's change means for this node's playback: the records it serves from memory
// (and its playback workers' copies) and the segments its cache lists.
export const playbackOnNodeEvent: NodeEventHandlers = {
  'asset-deleted': async ({ assetId }) => {
    await forgetAssetPlayback(assetId);
    segmentCache().forgetUnder(assetDirectory(getEnv().dataDir, assetId));
  },
  'playback-id-deleted': ({ playbackId }) => forgetPlaybackId(playbackId),
  'tracks-changed': async ({ assetId }) => {
    // A track became ready, was renamed or deleted: playlists list the asset's tracks.
    await forgetAssetPlayback(assetId);
    await forgetDeletedAudioTracks(assetId);
  },
};
