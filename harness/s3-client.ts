import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';

export type S3Credentials = { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string };

/**
 * A client for the tests' own S3 (Swift): path-style, checksums only where an operation needs one,
 * as Keyframe's own client (lib/storage) talks to custom endpoints.
 */
export const testS3Client = (s3: S3Credentials): S3Client =>
  new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });

/** The object's bytes, or undefined if there is no such key. */
export const readObjectOrUndefined = async (client: S3Client, bucket: string, key: string): Promise<Buffer | undefined> => {
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await object.Body!.transformToByteArray());
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
};
