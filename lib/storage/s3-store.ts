import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { DependencyTimeoutError } from '../errors/dependency-unavailable';
import { publishStream } from './atomic-file';
import { assertObjectKey, assertObjectPrefix, isBufferBody, type S3ObjectStore } from './object-store';

// Objects in one bucket of any S3-compatible server (AWS, R2, B2, MinIO, Garage, Ceph, Swift's
// s3api). Settings every such server needs: path-style addressing for custom endpoints, and
// checksums only where the operation requires one, since several servers refuse `aws-chunked`
// uploads (Swift: NotImplemented) or store the trailer as object bytes (s3rver).

export type S3StoreOptions = {
  bucket: string;
  /** Omitted for AWS itself. */
  endpoint?: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /** Keys per list page and per DeleteObjects request: S3's maximum unless a test wants several pages cheaply. */
  pageSize?: number;
  /** How long connecting, a connection without a byte either way, and a whole HEAD may take (ms); see DEFAULT_TIMEOUTS. */
  timeouts?: { connectMs: number; idleMs: number; headMs?: number };
};

// Without them a stalled endpoint holds every request (a segment, a health check, an ingest) for
// ever. Idle, not total: a large part going up keeps its connection busy. A timed-out request is
// retried by the SDK (3 attempts), then fails as storage being unavailable.
const DEFAULT_TIMEOUTS: NonNullable<S3StoreOptions['timeouts']> = { connectMs: 3_000, idleMs: 20_000 };
// A HEAD has no body to keep a connection busy: one unanswered this long is an outage, not three
// idle timeouts (a viewer's encode asks where the source is with one, and would wait a minute).
const DEFAULT_HEAD_MS = 5_000;

// Parts uploaded at once by a multipart upload, and their size: at most 4 × 16 MiB in memory per
// large upload. Files up to one part go up in a single PUT.
const PART_SIZE = 16 * 1024 ** 2;
const PARTS_IN_FLIGHT = 4;
// DeleteObjects takes at most this many keys per request, and ListObjectsV2 answers at most as many.
const MAX_PAGE_SIZE = 1000;

const isNotFound = (error: unknown): boolean => {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return failure?.$metadata?.httpStatusCode === 404 || failure?.name === 'NoSuchKey' || failure?.name === 'NotFound';
};

// The AWS SDK takes ~150 ms and ~23 MB of memory to load: it is loaded on first use, so a node on
// local disk never loads it. (Imported dynamically: a bundler hoists static imports of external
// packages to the top of the bundle even from modules it initialises lazily.)
const loadSdk = async () => {
  const [s3, storage, presigner] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/lib-storage'),
    import('@aws-sdk/s3-request-presigner'),
  ]);
  return { ...s3, Upload: storage.Upload, getSignedUrl: presigner.getSignedUrl };
};
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

export const createS3Store = (options: S3StoreOptions): S3ObjectStore => {
  const { bucket } = options;
  const pageSize = Math.min(options.pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
  let client: S3Client | undefined;
  let connecting: Promise<{ client: S3Client; sdk: Sdk }> | undefined;
  const connect = () =>
    (connecting ??= loadSdk().then((sdk) => {
      client = new sdk.S3Client({
        ...(options.endpoint ? { endpoint: options.endpoint } : {}),
        region: options.region,
        forcePathStyle: options.forcePathStyle,
        credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        requestHandler: { connectionTimeout: timeouts.connectMs, socketTimeout: timeouts.idleMs },
      });
      return { client, sdk };
    }));

  const getObject = async (key: string, range?: { start: number; end: number }) => {
    assertObjectKey(key);
    const { client, sdk } = await connect();
    const { GetObjectCommand } = sdk;
    try {
      return await client.send(
        new GetObjectCommand({ Bucket: bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  };

  const deleteBatch = async (keys: string[]): Promise<void> => {
    const { client, sdk } = await connect();
    const { DeleteObjectsCommand } = sdk;
    const command = new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } });
    // Servers that predate S3's flexible checksums (Swift among them) require Content-MD5 on
    // DeleteObjects, which the SDK no longer sends; AWS accepts it as well.
    command.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { body?: unknown; headers?: Record<string, string> };
        if (typeof request.body === 'string' && request.headers) {
          request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
        }
        return next(args);
      },
      { step: 'build', name: 'contentMd5ForDeleteObjects' },
    );
    const result = await client.send(command);
    const failed = result.Errors ?? [];
    if (failed.length > 0) {
      throw new Error(`S3 DeleteObjects failed for ${failed.length} key(s), e.g. ${failed[0]?.Key}: ${failed[0]?.Code} ${failed[0]?.Message}`);
    }
  };

  return {
    kind: 's3',
    bucket,

    async put(key, body, putOptions = {}) {
      assertObjectKey(key);
      const { client, sdk } = await connect();
      const { PutObjectCommand, Upload } = sdk;
      const contentType = putOptions.contentType ? { ContentType: putOptions.contentType } : {};
      if (isBufferBody(body)) {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: body.length, ...contentType }));
        return;
      }
      const { range } = body;
      const size = range ? range.end - range.start + 1 : (await stat(body.file)).size;
      const read = () => createReadStream(body.file, range ?? {});
      if (size <= PART_SIZE) {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: read(), ContentLength: size, ...contentType }));
        return;
      }
      // A multipart upload's object appears only when it is completed; a failed one is aborted.
      await new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: read(), ...contentType },
        partSize: PART_SIZE,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      }).done();
    },

    async getToFile(key, localPath) {
      const object = await getObject(key);
      if (!object?.Body) return false;
      const written = await publishStream(localPath, object.Body as Readable);
      if (object.ContentLength !== undefined && written !== object.ContentLength) {
        throw new Error(`S3 object ${key}: got ${written} of ${object.ContentLength} bytes`);
      }
      return true;
    },

    async stat(key) {
      assertObjectKey(key);
      const { client, sdk } = await connect();
      const { HeadObjectCommand } = sdk;
      const headMs = timeouts.headMs ?? DEFAULT_HEAD_MS;
      const deadline = AbortSignal.timeout(headMs);
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: deadline });
        return { size: head.ContentLength ?? 0, lastModified: head.LastModified ?? new Date(0) };
      } catch (error) {
        if (isNotFound(error)) return null;
        if (deadline.aborted) throw new DependencyTimeoutError('storage', `S3 HEAD ${key} got no answer within ${headMs} ms`);
        throw error;
      }
    },

    async createReadStream(key, range) {
      const object = await getObject(key, range);
      return (object?.Body as Readable | undefined) ?? null;
    },

    async delete(key) {
      assertObjectKey(key);
      const { client, sdk } = await connect();
      const { DeleteObjectCommand } = sdk;
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },

    async listFolder(prefix) {
      assertObjectPrefix(prefix);
      const { client, sdk } = await connect();
      const names: string[] = [];
      let continuationToken: string | undefined;
      do {
        const listed = await client.send(
          new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: continuationToken, MaxKeys: pageSize }),
        );
        for (const object of listed.Contents ?? []) if (object.Key) names.push(object.Key.slice(prefix.length));
        continuationToken = listed.IsTruncated ? listed.NextContinuationToken : undefined;
      } while (continuationToken);
      return names;
    },

    async deletePrefix(prefix) {
      assertObjectPrefix(prefix);
      const { client, sdk } = await connect();
      const { ListObjectsV2Command } = sdk;
      // Listed again from the start after each batch, since deleting shifts what a continuation
      // token would point at on some servers.
      let previousFirst: string | undefined;
      for (;;) {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: pageSize }));
        const keys = (listed.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : []));
        if (keys.length === 0) return;
        if (keys[0] === previousFirst) throw new Error(`S3 DeleteObjects left ${keys[0]} in place`);
        previousFirst = keys[0];
        await deleteBatch(keys);
      }
    },

    async presignedGetUrl(key, expiresInSeconds) {
      assertObjectKey(key);
      const { client, sdk } = await connect();
      return sdk.getSignedUrl(client, new sdk.GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: expiresInSeconds });
    },

    close: () => client?.destroy(),
  };
};
