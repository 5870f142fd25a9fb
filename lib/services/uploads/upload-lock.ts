import { KeyedLock } from '../../utils/keyed-lock';
import { processSingleton } from '../../utils/process-singleton';

// One writer per upload: a chunk re-sent after a network error can arrive while the server is
// still writing the first copy.
export const uploadLock = (): KeyedLock => processSingleton('upload-lock', () => new KeyedLock());
