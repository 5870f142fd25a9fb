import type { NodeEvent, NodeEventHandlers } from './node-event';

type AnyHandler = (event: NodeEvent) => Promise<void> | void;

/**
 * Applies an event with every domain's handler of its type, one after another in the order given:
 * a later share may rely on an earlier one (a deleted asset's files go once nothing here serves
 * or encodes it). A handler that returns nothing runs in the same tick as the next one, as the
 * steps did when one function applied them all. The first handler that throws stops the rest.
 */
export const nodeEventDispatcher =
  (domains: readonly NodeEventHandlers[]) =>
  async (event: NodeEvent): Promise<void> => {
    for (const handlers of domains) {
      // The map's key is the event's own type, so the handler takes this event.
      const handler = handlers[event.type] as AnyHandler | undefined;
      const applying = handler?.(event);
      if (applying) await applying;
    }
  };
