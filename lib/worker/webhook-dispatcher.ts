import type { Logger } from 'pino';
import { recordWebhookDelivery } from '../metrics/record';
import { deliverWebhook } from '../services/webhooks/deliver-webhook';
import { claimDueWebhookDelivery } from '../services/webhooks/webhook-delivery-queue';
import { onWebhookRecorded } from '../services/webhooks/webhook-signals';
import { startClaimLoop } from './claim-loop';

type RunningDelivery = { id: string; endpointId: string };

// Sends webhook deliveries from the outbox, in this process but apart from the job worker: the
// worker's few slots run ingests, and a slow or dead receiver must never hold one of them. Each
// attempt has its own deadline. An endpoint has one request in flight at a time, its oldest due
// delivery first, so a healthy receiver sees an asset's events in the order they happened
// (`created` before `ready`), and a receiver that times out holds one slot, never the others'.

export type WebhookDispatcher = { stop: (graceMs: number) => Promise<void>; activeDeliveries: () => number };

export const WEBHOOK_CONCURRENCY = 4;
const POLL_INTERVAL_MS = 1_000;
// An attempt ends by its timeout; a delivery still `sending` this much later was left by a
// dispatcher that died, and is sent again (see claim-webhook-delivery.ts).
const LEASE_MARGIN_MS = 60_000;

export const startWebhookDispatcher = ({
  concurrency = WEBHOOK_CONCURRENCY,
  timeoutMs,
  retryBaseMs,
  log,
}: {
  concurrency?: number;
  timeoutMs: number;
  retryBaseMs: number;
  log: Logger;
}): WebhookDispatcher => {
  // Aborted on stop: in-flight requests end at once and go back to pending uncounted.
  const shutdown = new AbortController();

  const busyEndpointIds = (running: RunningDelivery[]): string[] => [...new Set(running.map(({ endpointId }) => endpointId))];

  const send = async ({ id: deliveryId, endpointId }: RunningDelivery) => {
    const result = await deliverWebhook({ deliveryId, signal: shutdown.signal, timeoutMs, retryBaseMs });
    const details = { deliveryId, endpointId, ...result };
    // Released (shutdown) and gone (deleted meanwhile) are not attempts that ended.
    if (result.outcome === 'delivered' || result.outcome === 'retry' || result.outcome === 'failed') recordWebhookDelivery(result.outcome);
    if (result.outcome === 'retry') log.info(details, 'webhook delivery failed; will retry');
    else if (result.outcome === 'failed') log.warn(details, 'webhook delivery failed for 24 h; giving up');
    else log.debug(details, 'webhook delivery attempt finished');
  };

  const loop = startClaimLoop<RunningDelivery>({
    concurrency,
    claim: (running) => claimDueWebhookDelivery({ excludeEndpointIds: busyEndpointIds(running), leaseMs: timeoutMs + LEASE_MARGIN_MS }),
    run: send,
    subscribe: onWebhookRecorded,
    pollIntervalMs: POLL_INTERVAL_MS,
    onClaimError: (error) => log.error({ err: error }, 'failed to claim webhook deliveries'),
    onRunError: (error, { id }) => log.error({ err: error, deliveryId: id }, 'webhook delivery bookkeeping failed'),
  });

  return {
    activeDeliveries: () => loop.running().length,
    stop: (graceMs) => loop.stop(graceMs, () => shutdown.abort(new Error('server is shutting down'))),
  };
};
