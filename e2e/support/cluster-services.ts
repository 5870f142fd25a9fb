import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import { redisUnavailableAt } from '../../lib/coordination/test-redis';
import { readObjectOrUndefined, testS3Client } from '../../harness/s3-client';

// What the servers of a cluster-mode run (E2E_CLUSTER=1) share: the PostgreSQL and Redis on
// 127.0.0.1 that CI machines run, and one Swift + s3api started by the global setup for the whole
// run (its address passed to the Playwright workers through E2E_CLUSTER_S3). Each cluster gets a
// database, a Redis key prefix and a bucket of its own, and removes them when it is disposed.

export const isCluster = (): boolean => process.env.E2E_CLUSTER === '1';

export const CLUSTER_POSTGRES_ADMIN_URL = process.env.E2E_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
export const CLUSTER_REDIS_URL = process.env.E2E_REDIS_URL || 'redis://127.0.0.1:6379';

const S3_ENV = 'E2E_CLUSTER_S3';

export type ClusterS3 = { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string };

export const publishClusterS3 = (s3: ClusterS3): void => {
  process.env[S3_ENV] = JSON.stringify(s3);
};

export const clusterS3 = (): ClusterS3 => {
  const published = process.env[S3_ENV];
  if (!published) throw new Error(`${S3_ENV} is not set: cluster mode needs the Swift the global setup starts (run through npm run test:e2e:cluster)`);
  return JSON.parse(published) as ClusterS3;
};

export const uniqueClusterName = (): string => `keyframe-e2e-${randomBytes(6).toString('hex')}`;

export const createBucket = async (s3: ClusterS3, bucket: string): Promise<void> => {
  const client = testS3Client(s3);
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
};

/** The object's bytes, or undefined if there is no such key. */
export const readObject = async (s3: ClusterS3, bucket: string, key: string): Promise<Buffer | undefined> => {
  const client = testS3Client(s3);
  try {
    return await readObjectOrUndefined(client, bucket, key);
  } finally {
    client.destroy();
  }
};

/** The keys under `prefix` (at most 1000: enough for what a test puts there). */
export const listKeys = async (s3: ClusterS3, bucket: string, prefix: string): Promise<string[]> => {
  const client = testS3Client(s3);
  try {
    return ((await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? []).map((object) => object.Key ?? '');
  } finally {
    client.destroy();
  }
};

/** Empties the bucket (one DeleteObject per key: Swift wants Content-MD5 on DeleteObjects) and removes it. */
export const deleteBucket = async (s3: ClusterS3, bucket: string): Promise<void> => {
  const client = testS3Client(s3);
  try {
    for (;;) {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1000 }));
      const keys = (listed.Contents ?? []).map((object) => object.Key).filter((key): key is string => Boolean(key));
      if (keys.length === 0) break;
      for (let start = 0; start < keys.length; start += 16) {
        await Promise.all(keys.slice(start, start + 16).map((key) => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))));
      }
    }
    await client.send(new DeleteBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
};

/** Why the Redis at CLUSTER_REDIS_URL cannot be used, or null when it answers. */
export const redisUnavailable = (): Promise<string | null> => redisUnavailableAt(CLUSTER_REDIS_URL);

/** Every key under `prefix:` (the prefix the nodes were given as REDIS_KEY_PREFIX). */
export const deleteRedisKeys = async (prefix: string): Promise<void> => {
  const redis = new Redis(CLUSTER_REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
};

/** For process-exit cleanup, where nothing asynchronous runs any more: deletes them in a child process. */
export const deleteRedisKeysSync = (prefixes: string[]): void => {
  if (prefixes.length === 0) return;
  const script = `const { Redis } = require('ioredis'); (async () => { const redis = new Redis(process.argv[1]);
    for (const prefix of process.argv.slice(2)) { let cursor = '0';
      do { const [next, keys] = await redis.scan(cursor, 'MATCH', prefix + ':*', 'COUNT', 1000); if (keys.length) await redis.del(...keys); cursor = next; } while (cursor !== '0'); }
    redis.disconnect(); })();`;
  spawnSync(process.execPath, ['-e', script, CLUSTER_REDIS_URL, ...prefixes], { stdio: 'ignore', timeout: 10_000 });
};
