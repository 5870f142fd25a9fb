import { startSwiftS3, SwiftUnavailableError, type RunningSwiftS3 } from '../../../harness/swift-s3.mjs';
import type { S3StoreOptions } from '../s3-store';

// The S3 the tests trust: Swift + s3api (verifies SigV4 signatures). A machine where it cannot be
// installed skips the S3 tests and says why; one where it is installed but does not start fails.

// Four Python daemons importing on a shared 2-core machine.
export const SWIFT_START_TIMEOUT_MS = 120_000;

export const startTestSwift = async (bucket: string): Promise<RunningSwiftS3 | null> => {
  try {
    return await startSwiftS3({ bucket });
  } catch (error) {
    if (!(error instanceof SwiftUnavailableError)) throw error;
    console.warn(`${error.message}; skipping the S3 (Swift) tests`);
    return null;
  }
};

export const s3OptionsOf = (swift: RunningSwiftS3): S3StoreOptions => ({
  bucket: swift.bucket,
  endpoint: swift.endpoint,
  region: swift.region,
  accessKeyId: swift.accessKeyId,
  secretAccessKey: swift.secretAccessKey,
  forcePathStyle: true,
});
