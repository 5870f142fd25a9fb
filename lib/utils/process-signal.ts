import { EventEmitter } from 'node:events';
import { processSingleton } from './process-singleton';

// A process-wide "something happened" signal (e.g. a job was queued) between request handlers and
// background loops, which Next.js may load as separate module instances.
export const processSignal = (key: string) => {
  const emitter = () => processSingleton(`signal:${key}`, () => new EventEmitter());
  return {
    notify: (): void => {
      emitter().emit('signal');
    },
    subscribe: (listener: () => void): (() => void) => {
      emitter().on('signal', listener);
      return () => emitter().off('signal', listener);
    },
  };
};
