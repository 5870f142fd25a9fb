import { KeyedLock } from '../../utils/keyed-lock';
import { nodeRuntime } from '../../runtime/node-runtime';

// One writer per upload: a chunk re-sent after a network error can arrive while the server is
// still writing the first copy.
declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    uploadLock: KeyedLock;
  }
}

export const createUploadLock = (): KeyedLock => new KeyedLock();

export const uploadLock = (): KeyedLock => nodeRuntime().uploadLock;
