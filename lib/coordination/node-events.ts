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
  z.object({ type: z.literal('playback-id-deleted'), playbackId: z.string() }),
  z.object({ type: z.literal('restriction-changed'), restrictionId: z.string() }),
  z.object({ type: z.literal('signing-key-deleted'), keyId: z.string() }),
]);

export type NodeEvent = z.infer<typeof nodeEventSchema>;

const envelopeSchema = z.object({ from: z.string(), event: nodeEventSchema });

export type NodeEventBus = {
  /** Tells the other nodes; resolves once Redis has handed the message to every subscriber. */
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
  /** Called for every other node's event (a node applies its own change itself, at once). */
  onEvent: (event: NodeEvent) => void;
  onError: (error: unknown) => void;
}): Promise<NodeEventBus> => {
  const nodeId = randomUUID();
  const channel = redisKey(config, 'node-events');
  const subscriber = createRedisClient(config, 'node-events');
  subscriber.on('message', (received: string, message: string) => {
    if (received !== channel) return;
    try {
      const envelope = envelopeSchema.parse(JSON.parse(message));
      if (envelope.from !== nodeId) onEvent(envelope.event);
    } catch (error) {
      onError(error);
    }
  });
  await subscriber.subscribe(channel);
  return {
    publish: async (event) => {
      await commands.publish(channel, JSON.stringify({ from: nodeId, event }));
    },
    close: async () => {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
};
