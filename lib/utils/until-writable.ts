import type { Writable } from 'node:stream';

/**
 * Resolves once `stream` can take more data ('drain') or never will ('close'). Whichever fires
 * first removes both listeners: a long response to a slow reader drains many times, and a
 * listener left behind per drain piles up on the stream.
 */
export const untilWritable = (stream: Writable): Promise<void> =>
  new Promise<void>((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
  });
