import type { Logger } from 'pino';
import { retryThroughOutage } from '../errors/retry-through-outage';
import type { MigrationResult } from '../db/migrate';
import type { Env } from '../env';
import { verifySharedStorage } from '../services/storage/check-shared-storage';
import { sharedStore } from '../services/storage/shared-storage';
import { prepareDatabase } from './prepare-database';

// A node (re)started while the database or the bucket is down waits for it instead of exiting:
// started by a supervisor during an outage, it would otherwise crash-loop, and a cluster restarted
// after a power cut would need its nodes started in order. Until then it does not listen, so its
// balancer sees it as down. Configuration errors (credentials, a missing bucket) still stop it at once.

const STARTUP_OUTAGE_WAIT_MS = 10 * 60_000;
const RETRY_DELAY_MS = 2_000;

export const prepareDatabaseThroughOutage = (env: Env, log: Logger): Promise<MigrationResult> =>
  retryThroughOutage(() => prepareDatabase(env), {
    windowMs: STARTUP_OUTAGE_WAIT_MS,
    delayMs: RETRY_DELAY_MS,
    // A refused connection to the database server is the database being down.
    only: ['database', 'network'],
    onRetry: (error) => log.warn({ err: error }, `the database is unavailable; starting once it answers (trying every ${RETRY_DELAY_MS / 1000} s)`),
  });

/** The bucket's name once it passes the write/read/delete check (null with local disk); throws when it is not usable. */
export const verifyStorageThroughOutage = async (log: Logger): Promise<string | null> => {
  const store = sharedStore();
  try {
    return await retryThroughOutage(verifySharedStorage, {
      windowMs: STARTUP_OUTAGE_WAIT_MS,
      delayMs: RETRY_DELAY_MS,
      only: ['storage'],
      onRetry: (error) => log.warn({ err: error, bucket: store?.bucket }, `the bucket is unavailable; starting once it answers (trying every ${RETRY_DELAY_MS / 1000} s)`),
    });
  } catch (error) {
    throw new Error(`S3 storage (bucket ${store?.bucket}) is not usable: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, { cause: error });
  }
};
