import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { untilWritable } from './until-writable';

describe('untilWritable', () => {
  it('leaves no listener behind, however many times the stream drains', async () => {
    const stream = new PassThrough({ highWaterMark: 1 });
    for (let round = 0; round < 20; round++) {
      expect(stream.write(Buffer.alloc(16))).toBe(false);
      const writable = untilWritable(stream);
      stream.read();
      await writable;
    }
    expect(stream.listenerCount('close')).toBe(0);
    expect(stream.listenerCount('drain')).toBe(0);
  });

  it('resolves when the stream closes instead of draining', async () => {
    const stream = new PassThrough({ highWaterMark: 1 });
    stream.write(Buffer.alloc(16));
    const writable = untilWritable(stream);
    stream.destroy();
    await writable;
    expect(stream.listenerCount('drain')).toBe(0);
  });
});
