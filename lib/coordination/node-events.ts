import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { RedisConfig } from '../env';
import { createRedisClient, redisKey } from './redis-client';

// Changes that every node's in-memory state must learn at once: a deleted asset or playback ID must
// 404 on every node from the next request, a restriction's new rules and a signing key's deletion
// apply everywhere, and a
// deleted asset's encodes and ingest stop wherever they run. Published on one Redis channel every
// node subscribes to; without Redis there is one process, and nothing to tell.

const nodeEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('asset-deleted'), assetId: z.string() }),
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

const envelopeSchema = z.object({ id: z.string(), from: z.string(), event: nodeEventSchema });
const ackSchema = z.object({ id: z.string(), from: z.string() });

// How long a publisher waits for every other node to say it applied an event. A node that does
// not answer in time (stuck, or gone without unsubscribing) is logged, not waited for: its cached
// records expire within a minute anyway.
const ACK_TIMEOUT_MS = 2_000;

export type NodeEventBus = {
  /**
   * Tells the other nodes; resolves once every node that received it has applied it (or after
   * ACK_TIMEOUT_MS, through onError). Redis handing a message to a subscriber is not enough: the
   * next request, on another node, could arrive before that node read it.
   */
  publish: (event: NodeEvent) => Promise<void>;
  close: () => Promise<void>;
};

export const startNodeEventBus = async ({
  config,
  commands,
  onEvent,
  onError,
}: {
  config: RedisConfig;
  commands: Redis;
  /** Called for every other node's event (a node applies its own change itself, at once); acknowledged once it settles. */
  onEvent: (event: NodeEvent) => Promise<void> | void;
  onError: (error: unknown) => void;
}): Promise<NodeEventBus> => {
  const nodeId = randomUUID();
  const channel = redisKey(config, 'node-events');
  const ackChannel = redisKey(config, 'node-events-ack');
  const subscriber = createRedisClient(config, 'node-events');
  // Events this node published, waiting for the other nodes' acknowledgements.
  type Waiting = { acked: number; expected: number | null; done: () => void };
  const waiting = new Map<string, Waiting>();
  const settleIfAllAcked = (pending: Waiting) => {
    if (pending.expected !== null && pending.acked >= pending.expected) pending.done();
  };

  const acknowledge = (id: string) =>
    commands.publish(ackChannel, JSON.stringify({ id, from: nodeId })).catch((error: unknown) => onError(error));

  const onAck = (message: string) => {
    const ack = ackSchema.parse(JSON.parse(message));
    const pending = waiting.get(ack.id);
    if (!pending || ack.from === nodeId) return;
    pending.acked++;
    settleIfAllAcked(pending);
  };

  const onNodeEvent = (message: string) => {
    const envelope = envelopeSchema.parse(JSON.parse(message));
    if (envelope.from === nodeId) return;
    void Promise.resolve()
      .then(() => onEvent(envelope.event))
      .catch((error: unknown) => onError(error))
      .finally(() => void acknowledge(envelope.id));
  };

  subscriber.on('message', (received: string, message: string) => {
    try {
      if (received === channel) onNodeEvent(message);
      else if (received === ackChannel) onAck(message);
    } catch (error) {
      onError(error);
    }
  });
  await subscriber.subscribe(channel, ackChannel);
  return {
    publish: async (event) => {
      const id = randomUUID();
      const acknowledged = new Promise<void>((resolve) => {
        const pending: Waiting = {
          acked: 0,
          expected: null,
          done: () => {
            clearTimeout(timer);
            waiting.delete(id);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          onError(new Error(`${(pending.expected ?? 0) - pending.acked} node(s) did not acknowledge ${event.type} within ${ACK_TIMEOUT_MS} ms`));
          pending.done();
        }, ACK_TIMEOUT_MS);
        waiting.set(id, pending);
      });
      // PUBLISH answers how many subscribers received it, this node's own included.
      const receivers = await commands.publish(channel, JSON.stringify({ id, from: nodeId, event }));
      const pending = waiting.get(id);
      if (pending) {
        pending.expected = receivers - 1;
        settleIfAllAcked(pending);
      }
      await acknowledged;
    },
    close: async () => {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
};
