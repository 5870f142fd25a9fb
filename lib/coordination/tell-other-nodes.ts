import { getLogger } from '../log';
import { nodeRuntime } from '../runtime/node-runtime';
import type { NodeEvent, NodeEventBus } from './node-event';

// What a service imports to announce a change (see node-event.ts): nothing but the running bus,
// which the server entry starts and sets here (lib/server/start-node-events.ts). A CLI command, a
// test and a node without Redis have none, and tell nobody.

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    nodeEvents: { bus: NodeEventBus | null };
  }
}

/**
 * Tells the other nodes about a change this node has applied. A Redis that does not answer is
 * logged, not thrown: the change itself is done, and the other nodes' records expire within a minute.
 */
export const tellOtherNodes = async (event: NodeEvent): Promise<void> => {
  const { bus } = nodeRuntime().nodeEvents;
  if (!bus) return;
  await bus.publish(event).catch((error: unknown) => getLogger().warn({ err: error, event }, 'telling the other nodes failed'));
};
