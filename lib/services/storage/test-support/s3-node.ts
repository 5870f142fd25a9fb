import { chmodSync, createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { getDb } from '../../../db/client';
import { migrateDatabase } from '../../../db/migrate-database';
import { getEnv } from '../../../env';
import { aac, ffmpeg, FFMPEG, x264 } from '../../../media/test-support/media-fixtures';
import type { RunningSwiftS3 } from '../../../../harness/swift-s3.mjs';
import { startTestSwift } from '../../../storage/test-support/swift-fixture';
import { sharedStore } from '../shared-storage';

// This test process as a Keyframe node on S3 storage (a real Swift + s3api): DATA_DIR and a SQLite
// database in a temp folder, a 12 s input clip served over HTTP, and ffmpeg behind a wrapper that
// logs every run, so tests can count encodes. The environment is set before the first getEnv(),
// so each test file using it runs in a process of its own (Vitest's forks pool).

export type S3Node = {
  swift: RunningSwiftS3;
  inputUrl: string;
  /** One line (the arguments) per ffmpeg run so far. */
  ffmpegRuns: () => string[];
  /** The bucket's keys under a prefix, listed with a client of the test's own. */
  bucketKeys: (prefix: string) => Promise<string[]>;
  stop: () => Promise<void>;
};

const serveFile = async (file: string): Promise<{ url: string; server: http.Server }> => {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(statSync(file).size) });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${path.basename(file)}`, server };
};

/** Null (having said why) where Swift cannot be installed. `env`: further settings, e.g. S3_PUBLIC_URL. */
export const startS3Node = async ({
  bucket,
  env = () => ({}),
}: {
  bucket: string;
  env?: (swift: RunningSwiftS3) => Record<string, string> | Promise<Record<string, string>>;
}): Promise<S3Node | null> => {
  const swift = await startTestSwift(bucket);
  if (!swift) return null;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'keyframe-s3-node-'));
  const clip = path.join(scratch, 'clip.mp4');
  await ffmpeg(
    ...['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25:duration=12', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=12'],
    ...[...x264, '-g', '50', ...aac, '-movflags', '+faststart', '-shortest', clip],
  );
  const input = await serveFile(clip);

  const ffmpegLog = path.join(scratch, 'ffmpeg-runs.log');
  const wrapper = path.join(scratch, 'ffmpeg');
  writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> '${ffmpegLog}'\nexec ${FFMPEG} "$@"\n`);
  chmodSync(wrapper, 0o755);

  Object.assign(process.env, {
    DATA_DIR: path.join(scratch, 'data'),
    DATABASE_URL: `file:${path.join(scratch, 'keyframe.db')}`,
    ALLOW_PRIVATE_INPUT_URLS: 'true',
    FFMPEG_PATH: wrapper,
    // Only the segments asked for are encoded, so the runs counted are theirs.
    PREFETCH_SEGMENTS: '0',
    S3_BUCKET: bucket,
    S3_ENDPOINT: swift.endpoint,
    S3_REGION: swift.region,
    S3_ACCESS_KEY_ID: swift.accessKeyId,
    S3_SECRET_ACCESS_KEY: swift.secretAccessKey,
    ...(await env(swift)),
  });
  if (getEnv().storage.driver !== 's3') throw new Error('getEnv() was read before the S3 node set the environment');
  const root = path.resolve(__dirname, '../../../..');
  await migrateDatabase(getEnv().database, {
    sqlite: path.join(root, 'prisma', 'migrations'),
    postgresql: path.join(root, 'prisma', 'postgres', 'migrations'),
  });

  const client = new S3Client({
    endpoint: swift.endpoint,
    region: swift.region,
    forcePathStyle: true,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
  });
  return {
    swift,
    inputUrl: input.url,
    ffmpegRuns: () => {
      try {
        return readFileSync(ffmpegLog, 'utf8').trim().split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
    bucketKeys: async (prefix) => {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key ?? '').sort();
    },
    stop: async () => {
      client.destroy();
      sharedStore()?.close();
      await getDb().$disconnect();
      input.server.close();
      await swift.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
};

/** Anyone may read the bucket's objects, at the URL this returns (Swift's own API, as a CDN would). */
export const makeSwiftBucketPublic = async (swift: RunningSwiftS3): Promise<string> => {
  const auth = await fetch(`${swift.endpoint}/auth/v1.0`, { headers: { 'x-auth-user': swift.accessKeyId, 'x-auth-key': swift.secretAccessKey } });
  const storageUrl = auth.headers.get('x-storage-url');
  const token = auth.headers.get('x-auth-token');
  if (!auth.ok || !storageUrl || !token) throw new Error(`Swift auth failed: ${auth.status}`);
  const containerUrl = `${storageUrl}/${swift.bucket}`;
  const updated = await fetch(containerUrl, { method: 'POST', headers: { 'x-auth-token': token, 'x-container-read': '.r:*' } });
  if (!updated.ok) throw new Error(`making ${swift.bucket} public failed: ${updated.status}`);
  return containerUrl;
};
