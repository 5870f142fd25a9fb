import { expect, test } from 'vitest';
import { lazyParts } from './lazy-parts';

test('a part is made on first use, once', () => {
  let made = 0;
  const parts = lazyParts({ cache: () => ({ n: ++made }), never: (): number => { throw new Error('not used'); } });
  expect(made).toBe(0);
  expect(parts.cache.n).toBe(1);
  expect(parts.cache).toBe(parts.cache);
  expect(made).toBe(1);
});
