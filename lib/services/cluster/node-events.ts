import { startNodeEventBus, type NodeEvent, type NodeEventBus } from '../../coordination/node-events';
import { sharedRedis } from '../../coordination/redis-client';
import { getEnv } from '../../env';
import { cancelAssetWork } from '../../jobs/signals';
import { getLogger } from '../../log';
import { assetDirectory, removeAssetFiles } from '../../storage/asset-files';
import { processSingleton } from '../../utils/process-singleton';
import { forgetAssetPlayback, forgetPlaybackId } from '../playback/playback-records';
import { forgetDeletedAudioTracks } from '../playback/forget-deleted-audio-tracks';
import { segmentCache } from '../playback/runtime';
import { forgetRestrictionRules } from '../playback-restrictions/find-restriction-rules';
import { forgetSigningPublicKey } from '../signing-keys/get-signing-key';
import { stopLocalBroadcast } from '../live/broadcast-control';
import { deleteSharedAsset } from '../storage/shared-storage';
import { removeLocalStaticRenditionFiles } from '../static-renditions/remove-local-static-rendition-files';

// What one node's change means for the others' in-memory state and local files (see
// lib/coordination/node-events.ts). The node making the change applies it itself, then tells the
// rest before answering, so no node serves a deleted asset once the DELETE has returned.

const state = () => processSingleton('node-event-bus', () => ({ bus: null as NodeEventBus | null }));

/** What another node's event changes here. */
export const applyNodeEvent = async (event: NodeEvent): Promise<void> => {
  switch (event.type) {
    case 'asset-deleted': {
      await forgetAssetPlayback(event.assetId);
      cancelAssetWork(event.assetId);
      segmentCache().forgetUnder(assetDirectory(getEnv().dataDir, event.assetId));
      // The node that deleted it waits for this much (the asset 404s here from now on); the files
      // go behind it, after this node's own uploads of the asset settle, so none lands after the
      // bucket was emptied.
      void deleteSharedAsset(event.assetId)
        .then(() => removeAssetFiles(getEnv().dataDir, event.assetId))
        .catch((error: unknown) => getLogger().warn({ err: error, assetId: event.assetId }, 'removing a deleted asset’s files failed'));
      return;
    }
    case 'static-renditions-deleted':
      // Never served without their row, but a copy left here would outlive the asset's use of it.
      await removeLocalStaticRenditionFiles(event.assetId, event.files);
      return;
    case 'playback-id-deleted':
      await forgetPlaybackId(event.playbackId);
      return;
    case 'tracks-changed':
      // A track became ready, was renamed or deleted: playlists list the asset's tracks.
      await forgetAssetPlayback(event.assetId);
      await forgetDeletedAudioTracks(event.assetId);
      return;
    case 'restriction-changed':
      forgetRestrictionRules(event.restrictionId);
      return;
    case 'signing-key-deleted':
      forgetSigningPublicKey(event.keyId);
      return;
    case 'live-broadcast-stop':
      await stopLocalBroadcast(event.liveStreamId, event.reason);
      return;
  }
};

/** Listens to the other nodes (with Redis; a no-op without). */
export const startNodeEvents = async (): Promise<() => Promise<void>> => {
  const config = getEnv().redis;
  if (!config) return async () => undefined;
  const log = getLogger().child({ component: 'node-events' });
  const bus = await startNodeEventBus({
    config,
    commands: sharedRedis(),
    onEvent: (event) => applyNodeEvent(event).catch((error: unknown) => log.error({ err: error, event }, 'applying another node’s change failed')),
    onError: (error) => log.warn({ err: error }, 'an unreadable node event was ignored'),
  });
  state().bus = bus;
  return async () => {
    state().bus = null;
    await bus.close();
  };
};

/**
 * Tells the other nodes about a change this node has applied. A Redis that does not answer is
 * logged, not thrown: the change itself is done, and the other nodes' records expire within a minute.
 */
export const tellOtherNodes = async (event: NodeEvent): Promise<void> => {
  const { bus } = state();
  if (!bus) return;
  await bus.publish(event).catch((error: unknown) => getLogger().warn({ err: error, event }, 'telling the other nodes failed'));
};
