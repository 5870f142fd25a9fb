import { EventEmitter } from 'node:events';
import { nodeRuntime } from '../runtime/node-runtime';
import { entryOf } from '../utils/map-entry';

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
  const emitter = () => entryOf(nodeRuntime().signals, key, () => new EventEmitter());
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
