import { createRedisClient } from './redis-client';
import { produceOnceAcrossNodes } from './segment-lock';

// A node for segment-lock.test.ts to kill with SIGKILL while it holds the lock: it starts
// producing `key` and never finishes. Arguments: the Redis URL, the key prefix, the key, the lock's ms.

const [url, keyPrefix, key, lockMs] = process.argv.slice(2);
if (!url || !keyPrefix || !key || !lockMs) throw new Error('usage: segment-lock-holder.fixture.ts <redis-url> <key-prefix> <key> <lock-ms>');

const config = { url, keyPrefix };
const produceOnce = produceOnceAcrossNodes({
  config,
  commands: createRedisClient(config, 'fixture-commands'),
  subscriber: createRedisClient(config, 'fixture-subscriber'),
  lockMs: Number(lockMs),
});
void produceOnce.run(key, {
  isAvailable: async () => false,
  produce: async () => {
    process.stdout.write('producing\n');
    await new Promise(() => undefined);
  },
});
