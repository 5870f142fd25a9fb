import { EventEmitter } from 'node:events';
import { nodeRuntime } from '../runtime/node-runtime';

// A process-wide "something happened" signal (e.g. a job was queued) between request handlers and
// background loops, which Next.js may load as separate module instances: the emitters live in the
// node runtime, one per signal name.

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    signals: Map<string, EventEmitter>;
  }
}

export const createSignalEmitters = (): Map<string, EventEmitter> => new Map();

export const processSignal = (key: string) => {
  const emitter = () => {
    const emitters = nodeRuntime().signals;
    let existing = emitters.get(key);
    if (!existing) {
      existing = new EventEmitter();
      emitters.set(key, existing);
    }
    return existing;
  };
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
