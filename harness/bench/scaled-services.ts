import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startSwiftS3, type RunningSwiftS3 } from '../swift-s3.mjs';
import { errorMessage } from '../stats';

// The services a scaled-out Keyframe runs on, for `--scaled`: the PostgreSQL and Redis this kind of
// machine provides on loopback, and an OpenStack Swift (s3api) the benchmark starts itself. Every
// configuration measured gets a database, a Redis key prefix and a bucket of its own; release()
// drops and deletes all of them and stops Swift.

export const SCALED_POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const SCALED_REDIS_URL = 'redis://127.0.0.1:6379';

export type ScaledServices = {
  swift: RunningSwiftS3;
  /** Server environment for a configuration of its own (fresh database, key prefix and bucket). */
  environmentFor(label: string): Promise<Record<string, string>>;
  release(): Promise<void>;
};

export type ScaledServicesOutcome = { available: true; services: ScaledServices } | { available: false; reason: string };

const withPostgresAdmin = async <T>(run: (admin: pg.Client) => Promise<T>): Promise<T> => {
  const admin = new pg.Client({ connectionString: SCALED_POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3_000 });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end().catch(() => undefined);
  }
};

const redisClient = () => {
  const client = new Redis(SCALED_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3_000 });
  client.on('error', () => undefined);
  return client;
};

const deleteKeys = async (client: Redis, prefix: string) => {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await client.del(...keys);
  } while (cursor !== '0');
};

/** Why the scaled configuration cannot run here, or null when PostgreSQL and Redis answer. */
const unreachable = async (): Promise<string | null> => {
  try {
    await withPostgresAdmin((admin) => admin.query('SELECT 1'));
  } catch (error) {
    return `PostgreSQL does not answer at ${new URL(SCALED_POSTGRES_ADMIN_URL).host} (${errorMessage(error)})`;
  }
  const client = redisClient();
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return `Redis does not answer at ${new URL(SCALED_REDIS_URL).host} (${errorMessage(error)})`;
  } finally {
    client.disconnect();
  }
};

export const startScaledServices = async (log: (line: string) => void): Promise<ScaledServicesOutcome> => {
  const reason = await unreachable();
  if (reason) return { available: false, reason };
  const runId = randomBytes(4).toString('hex');
  log('scaled: starting OpenStack Swift (s3api) for the bucket…');
  let swift: RunningSwiftS3;
  try {
    swift = await startSwiftS3({ bucket: `keyframe-bench-${runId}` });
  } catch (error) {
    return { available: false, reason: `OpenStack Swift could not start (${errorMessage(error).split('\n')[0]})` };
  }
  const databases: string[] = [];
  const prefixes: string[] = [];
  const redis = redisClient();
  await redis.connect();
  return {
    available: true,
    services: {
      swift,
      environmentFor: async (label) => {
        const slug = label.replace(/[^a-z0-9]+/gi, '_').toLowerCase();
        const database = `keyframe_bench_${runId}_${slug}`;
        await withPostgresAdmin((admin) => admin.query(`CREATE DATABASE "${database}"`));
        databases.push(database);
        const prefix = `keyframe-bench-${runId}-${slug}`;
        prefixes.push(prefix);
        const url = new URL(SCALED_POSTGRES_ADMIN_URL);
        url.pathname = `/${database}`;
        return {
          DATABASE_URL: url.toString(),
          REDIS_URL: SCALED_REDIS_URL,
          REDIS_KEY_PREFIX: prefix,
          // One bucket, each configuration under keys of its own assets (asset IDs are unique).
          S3_BUCKET: swift.bucket,
          S3_ENDPOINT: swift.endpoint,
          S3_REGION: swift.region,
          S3_ACCESS_KEY_ID: swift.accessKeyId,
          S3_SECRET_ACCESS_KEY: swift.secretAccessKey,
          S3_FORCE_PATH_STYLE: 'true',
        };
      },
      release: async () => {
        for (const prefix of prefixes) await deleteKeys(redis, prefix).catch((error: unknown) => log(`scaled: could not delete Redis keys ${prefix}:* (${errorMessage(error)})`));
        redis.disconnect();
        for (const database of databases) {
          await withPostgresAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)).catch((error: unknown) =>
            log(`scaled: could not drop database ${database} (${errorMessage(error)})`),
          );
        }
        await swift.stop();
      },
    },
  };
};
