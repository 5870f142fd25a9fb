import { startNodeEventBus } from '../coordination/node-events';
import { nodeEventDispatcher } from '../coordination/node-events-dispatch';
import { sharedRedis } from '../coordination/redis-client';
import { getEnv } from '../env';
import { getLogger } from '../log';
import { nodeRuntime } from '../runtime/node-runtime';
import { nodeEventHandlers } from './node-event-handlers';

/**
 * Listens to the other nodes (with Redis; a no-op without) and applies their changes with every
 * domain's handlers; while it runs, this node's own changes are told through it (tellOtherNodes).
 */
export const startNodeEvents = async (): Promise<() => Promise<void>> => {
  const config = getEnv().redis;
  if (!config) return async () => undefined;
  const log = getLogger().child({ component: 'node-events' });
  const applyNodeEvent = nodeEventDispatcher(nodeEventHandlers);
  const bus = await startNodeEventBus({
    config,
    commands: sharedRedis(),
    onEvent: (event) => applyNodeEvent(event).catch((error: unknown) => log.error({ err: error, event }, 'applying another node’s change failed')),
    onError: (error) => log.warn({ err: error }, 'an unreadable node event was ignored'),
  });
  const part = nodeRuntime().nodeEvents;
  part.bus = bus;
  return async () => {
    part.bus = null;
    await bus.close();
  };
};
