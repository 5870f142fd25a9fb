// Types for swift-s3.mjs (plain JavaScript, so it also runs with plain node as a CLI).
export declare class SwiftUnavailableError extends Error {}
export type RunningSwiftS3 = {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  logFile: string;
  stop: () => Promise<void>;
};
export declare const startSwiftS3: (options?: { bucket?: string }) => Promise<RunningSwiftS3>;
