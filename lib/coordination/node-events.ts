import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { RedisConfig } from '../env';
import { nodeEventSchema, type NodeEvent, type NodeEventBus } from './node-event';
import { createRedisClient, redisKey } from './redis-client';

// The bus that carries node events (node-event.ts) between nodes over Redis, with acknowledgements.

const envelopeSchema = z.object({ id: z.string(), from: z.string(), event: nodeEventSchema });
const ackSchema = z.object({ id: z.string(), from: z.string() });

// How long a publisher waits for every other node to say it applied an event. A node that does
// not answer in time (stuck, or gone without unsubscribing) is logged, not waited for: its cached
// records expire within a minute anyway.
const ACK_TIMEOUT_MS = 2_000;

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
