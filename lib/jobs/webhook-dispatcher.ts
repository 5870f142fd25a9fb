import type { Logger } from 'pino';
import { deliverWebhook } from '../services/webhooks/deliver-webhook';
import { claimDueWebhookDelivery } from '../services/webhooks/webhook-delivery-queue';
import { onWebhookRecorded } from '../services/webhooks/webhook-signals';

// Sends webhook deliveries from the outbox, in this process but apart from the job worker: the
// worker's few slots run ingests, and a slow or dead receiver must never hold one of them. Each
// attempt has its own deadline, and one endpoint gets at most `perEndpointLimit` of the
// `concurrency` slots, so a receiver that times out cannot starve the others either.

export type WebhookDispatcher = { stop: (graceMs: number) => Promise<void>; activeDeliveries: () => number };

export const WEBHOOK_CONCURRENCY = 4;
const POLL_INTERVAL_MS = 1_000;

export const startWebhookDispatcher = ({
  concurrency = WEBHOOK_CONCURRENCY,
  perEndpointLimit = Math.max(1, Math.floor(concurrency / 2)),
  timeoutMs,
  retryBaseMs,
  log,
}: {
  concurrency?: number;
  perEndpointLimit?: number;
  timeoutMs: number;
  retryBaseMs: number;
  log: Logger;
}): WebhookDispatcher => {
  const running = new Map<string, { endpointId: string; done: Promise<void> }>();
  // Aborted on stop: in-flight requests end at once and go back to pending uncounted.
  const shutdown = new AbortController();
  let stopping = false;
  let filling = false;
  let refillRequested = false;

  const busyEndpointIds = (): string[] => {
    const perEndpoint = new Map<string, number>();
    for (const { endpointId } of running.values()) perEndpoint.set(endpointId, (perEndpoint.get(endpointId) ?? 0) + 1);
    return [...perEndpoint].filter(([, count]) => count >= perEndpointLimit).map(([endpointId]) => endpointId);
  };

  const send = async (deliveryId: string, endpointId: string) => {
    const result = await deliverWebhook({ deliveryId, signal: shutdown.signal, timeoutMs, retryBaseMs });
    const details = { deliveryId, endpointId, ...result };
    if (result.outcome === 'retry') log.info(details, 'webhook delivery failed; will retry');
    else if (result.outcome === 'failed') log.warn(details, 'webhook delivery failed for 24 h; giving up');
    else log.debug(details, 'webhook delivery attempt finished');
  };

  const fill = async () => {
    if (filling) {
      refillRequested = true;
      return;
    }
    filling = true;
    try {
      do {
        refillRequested = false;
        while (!stopping && running.size < concurrency) {
          const delivery = await claimDueWebhookDelivery({ excludeEndpointIds: busyEndpointIds() });
          if (!delivery) break;
          const done = send(delivery.id, delivery.endpointId)
            .catch((error: unknown) => log.error({ err: error, deliveryId: delivery.id }, 'webhook delivery bookkeeping failed'))
            .finally(() => {
              running.delete(delivery.id);
              void fill();
            });
          running.set(delivery.id, { endpointId: delivery.endpointId, done });
        }
      } while (refillRequested && !stopping);
    } catch (error) {
      log.error({ err: error }, 'failed to claim webhook deliveries');
    } finally {
      filling = false;
    }
  };

  const unsubscribe = onWebhookRecorded(() => void fill());
  // Retries come due by time, and a recording signal can fire before its transaction commits;
  // the poll covers both.
  const poll = setInterval(() => void fill(), POLL_INTERVAL_MS);
  void fill();

  return {
    activeDeliveries: () => running.size,
    stop: async (graceMs) => {
      stopping = true;
      unsubscribe();
      clearInterval(poll);
      shutdown.abort(new Error('server is shutting down'));
      const all = Promise.all([...running.values()].map((entry) => entry.done));
      await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    },
  };
};
