import type { AccessToken } from '../keyframe-process';

// What the chaos workload and its invariant checks see of the deployment under test: the balancer
// every client talks to, the nodes behind it (for checks that ask each node directly), the bucket
// as the harness reads it (past the fault proxy, so a check is never itself stalled), and the
// inputs clients create assets from. Built by chaos-cluster.ts; the workload never injects faults.

export type ChaosNode = { label: string; role: 'http' | 'worker'; baseUrl: string | null };

export type ChaosTarget = {
  /** The round-robin balancer (nginx) in front of the app nodes. */
  baseUrl: string;
  token: AccessToken;
  /** The app nodes' own URLs (a segment fetched from each must be the same bytes). */
  appUrls(): string[];
  /** RTMP ingest URLs (rtmp://127.0.0.1:PORT/app), one per app node: a broadcaster falls back to the next. */
  rtmpUrls(): string[];
  /** An input URL (served by a local media server) a create can name. */
  inputUrl: string;
  /** A local video file the direct uploads send, in chunks. */
  uploadFile: string;
  /** The object under `key` in the bucket, read straight from the object store (not through the fault proxy). */
  readObject(key: string): Promise<Buffer | undefined>;
  /** Keys under `prefix` in the bucket. */
  listKeys(prefix: string): Promise<string[]>;
  /** Registers a webhook endpoint (as `keyframe webhooks create` does); returns its signing secret. */
  createWebhookEndpoint(url: string): Promise<{ id: string; secret: string }>;
};
