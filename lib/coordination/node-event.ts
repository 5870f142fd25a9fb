import { z } from 'zod';

// Changes that every node's in-memory state must learn at once: a deleted asset or playback ID must
// 404 on every node from the next request, a restriction's new rules and a signing key's deletion
// apply everywhere, and a
// deleted asset's encodes and ingest stop wherever they run. Published on one Redis channel every
// node subscribes to (node-events.ts); without Redis there is one process, and nothing to tell.
// Announcing one (tell-other-nodes.ts) needs only these types, not the bus.

export const nodeEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('asset-deleted'), assetId: z.string() }),
  z.object({ type: z.literal('master-deleted'), assetId: z.string() }),
  z.object({ type: z.literal('static-renditions-deleted'), assetId: z.string(), files: z.array(z.object({ id: z.string(), name: z.string() })) }),
  z.object({ type: z.literal('playback-id-deleted'), playbackId: z.string() }),
  z.object({ type: z.literal('tracks-changed'), assetId: z.string() }),
  z.object({ type: z.literal('restriction-changed'), restrictionId: z.string() }),
  z.object({ type: z.literal('signing-key-deleted'), keyId: z.string() }),
  // The API ended a broadcast: the node holding its publisher stops it.
  z.object({ type: z.literal('live-broadcast-stop'), liveStreamId: z.string(), reason: z.enum(['complete', 'disable', 'delete', 'reset-key']) }),
]);

export type NodeEvent = z.infer<typeof nodeEventSchema>;

/**
 * What one domain does when another node's event arrives, by event type (its
 * lib/services/<domain>/on-node-event.ts). Several domains may take the same type: each applies its
 * own share, in the order the server entry lists them (lib/server/node-event-handlers.ts).
 */
export type NodeEventHandlers = { [K in NodeEvent['type']]?: (event: Extract<NodeEvent, { type: K }>) => Promise<void> | void };

export type NodeEventBus = {
  /**
   * Tells the other nodes; resolves once every node that received it has applied it (or after
   * node-events.ts's ACK_TIMEOUT_MS, through onError). Redis handing a message to a subscriber is not enough: the
   * next request, on another node, could arrive before that node read it.
   */
  publish: (event: NodeEvent) => Promise<void>;
  close: () => Promise<void>;
};
