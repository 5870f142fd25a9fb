import type { NodeEventHandlers } from '../coordination/node-event';
import { jobsOnNodeEvent } from '../jobs/on-node-event';
import { liveOnNodeEvent } from '../services/live/on-node-event';
import { masterOnNodeEvent } from '../services/master/on-node-event';
import { playbackRestrictionsOnNodeEvent } from '../services/playback-restrictions/on-node-event';
import { playbackOnNodeEvent } from '../services/playback/on-node-event';
import { signingKeysOnNodeEvent } from '../services/signing-keys/on-node-event';
import { staticRenditionsOnNodeEvent } from '../services/static-renditions/on-node-event';
import { storageOnNodeEvent } from '../services/storage/on-node-event';

// What one node's change means for the others' in-memory state and local files (see
// lib/coordination/node-events.ts): every domain's share, applied in this order. The node making
// the change applies it itself, then tells the rest before answering, so no node serves a deleted
// asset once the DELETE has returned.
//
// Order matters for a deleted asset: playback forgets it first (it 404s here from then on), its
// encodes and ingest stop, and only then do its files go (storage, last, not waited for).
export const nodeEventHandlers: readonly NodeEventHandlers[] = [
  playbackOnNodeEvent,
  jobsOnNodeEvent,
  storageOnNodeEvent,
  staticRenditionsOnNodeEvent,
  masterOnNodeEvent,
  playbackRestrictionsOnNodeEvent,
  signingKeysOnNodeEvent,
  liveOnNodeEvent,
];
