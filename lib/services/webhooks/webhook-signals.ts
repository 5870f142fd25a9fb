import { EventEmitter } from 'node:events';
import { processSingleton } from '../../utils/process-singleton';

// "A webhook delivery was recorded": wakes the dispatcher so it need not wait for its next poll.
// Recording happens inside transactions, so a listener may look before the commit; the poll
// catches anything it misses.

const signal = () => processSingleton('webhook-signal', () => new EventEmitter());

export const notifyWebhookRecorded = (): void => {
  signal().emit('recorded');
};

export const onWebhookRecorded = (listener: () => void): (() => void) => {
  signal().on('recorded', listener);
  return () => signal().off('recorded', listener);
};
