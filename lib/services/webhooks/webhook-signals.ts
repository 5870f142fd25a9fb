import { processSignal } from '../../coordination/process-signal';

// "A webhook delivery was recorded": wakes the dispatcher so it need not wait for its next poll.
// Recording happens inside transactions, so a listener may look before the commit; the poll
// catches anything it misses.
const recorded = processSignal('webhook-recorded');

export const notifyWebhookRecorded = recorded.notify;
export const onWebhookRecorded = recorded.subscribe;
