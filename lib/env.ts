import os from 'node:os';
import path from 'node:path';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import type { DatabaseConfig } from './db/database-config';
import { DEFAULT_POCKETSPHINX_MODEL_DIR } from './media/captions/pocketsphinx-model';
import { nodeRuntime } from './runtime/node-runtime';

// The only module that reads process.env. Everything else receives configuration from here, so a
// bad value fails fast with a message naming the variable.

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);

const booleanFlag = (fallback = false) =>
  z.preprocess(
    emptyAsUndefined,
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .optional()
      .transform((value) => (value === undefined ? fallback : value === 'true' || value === '1' || value === 'yes')),
  );

const positiveInt = (fallback: number) =>
  z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().default(fallback));

const optionalUrl = z.preprocess(
  emptyAsUndefined,
  z
    .url({ protocol: /^https?$/ })
    .transform((value) => value.replace(/\/+$/, ''))
    .optional(),
);

const rawEnvSchema = z.object({
  NODE_ENV: z.preprocess(emptyAsUndefined, z.enum(['development', 'production', 'test']).default('production')),
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(65535).default(3000)),
  HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
  BASE_URL: optionalUrl,
  STREAM_URL: optionalUrl,
  // Origin of the embeddable player page (/player/{playback_id}) in embed codes and oEmbed.
  PLAYER_URL: optionalUrl,
  // CSP frame-ancestors of the player page: which sites may embed it ('*': any).
  PLAYER_FRAME_ANCESTORS: z.preprocess(emptyAsUndefined, z.string().trim().min(1).default('*')),
  // What players are given as mux-embed's beacon-collection-domain (host[:port][/path]); mux-embed
  // posts to https://{value}, or http:// when it ends in localhost[:port].
  DATA_COLLECTOR_DOMAIN: z.preprocess(emptyAsUndefined, z.string().trim().regex(/^[A-Za-z0-9.-]+(:\d+)?(\/[^\s?#]*)?$/, 'expected host[:port][/path]').optional()),
  DATA_RETENTION_DAYS: positiveInt(90),
  DATA_VIEW_INACTIVITY_SECONDS: positiveInt(30 * 60),
  DATA_BEACON_RATE_PER_SECOND: positiveInt(30),
  DATA_BEACON_RATE_BURST: positiveInt(60),
  DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./data')),
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.string().optional()),
  FFMPEG_PATH: z.preprocess(emptyAsUndefined, z.string().default('ffmpeg')),
  FFPROBE_PATH: z.preprocess(emptyAsUndefined, z.string().default('ffprobe')),
  // The captions engine (Debian pocketsphinx + pocketsphinx-en-us); see lib/media/captions.
  POCKETSPHINX_PATH: z.preprocess(emptyAsUndefined, z.string().default('pocketsphinx_continuous')),
  POCKETSPHINX_MODEL_DIR: z.preprocess(emptyAsUndefined, z.string().default(DEFAULT_POCKETSPHINX_MODEL_DIR)),
  ALLOW_PRIVATE_INPUT_URLS: booleanFlag(),
  MAX_INPUT_BYTES: positiveInt(50 * 1024 ** 3),
  MAX_INPUT_DURATION_SECONDS: positiveInt(12 * 60 * 60),
  INPUT_DOWNLOAD_TIMEOUT_SECONDS: positiveInt(60 * 60),
  // How long a temporary master download URL stays valid (Mux: 24 h); then master access reverts.
  MASTER_ACCESS_TTL_SECONDS: positiveInt(24 * 60 * 60),
  // An ingest mostly waits on the network (the download, range requests); its CPU work (ffprobe and
  // the decode checks) is short and has slots of its own, sized to the cores.
  INGEST_CONCURRENCY: positiveInt(32),
  INGEST_CPU_CONCURRENCY: positiveInt(os.availableParallelism()),
  JIT_ENCODE_CONCURRENCY: positiveInt(os.availableParallelism()),
  RENDITION_CACHE_MAX_BYTES: positiveInt(20 * 1024 ** 3),
  // Below this much free space on DATA_DIR's disk the health check answers 503 (segments, uploads
  // and sources can no longer be written); 0 turns the check off.
  HEALTH_MIN_FREE_DISK_MB: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).default(100)),
  // Processes in front of the app that answer cached playlists and send stored files (see
  // lib/server/playback-workers.ts); 0 serves everything from the one process.
  PLAYBACK_WORKERS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(64).default(2)),
  PLAYBACK_WORKER_MEMORY_CACHE_BYTES: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).default(64 * 1024 ** 2)),
  PREFETCH_SEGMENTS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(20).default(3)),
  FILL_IDLE_ENCODERS: booleanFlag(true),
  WEBHOOK_RETRY_BASE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().positive().max(3600).default(5)),
  WEBHOOK_TIMEOUT_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().positive().max(120).default(10)),
  // Reverse proxies / CDN addresses whose X-Forwarded-For is believed (see lib/http/edge/client-address.ts).
  TRUSTED_PROXIES: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .default('')
      .transform((value) => value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''))
      .superRefine((entries, context) => {
        try {
          if (entries.length > 0) proxyaddr.compile(entries);
        } catch (error) {
          context.addIssue({ code: 'custom', message: `${(error as Error).message} (IPs, CIDR ranges, or loopback, linklocal, uniquelocal)` });
        }
      }),
  ),
  ASSET_GET_RATE_PER_SECOND: positiveInt(1),
  ASSET_GET_RATE_BURST: positiveInt(5),
  // Sent by Prometheus as `Authorization: Bearer …`; long enough that guessing it is hopeless.
  METRICS_TOKEN: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces (it travels in an HTTP header)')
      .min(16, 'must be at least 16 characters')
      .optional(),
  ),
  // Where the other nodes of a cluster reach this one: live playback of a broadcast this node holds
  // is forwarded here by the others. The default suits nodes on one machine.
  NODE_URL: optionalUrl,
  // Live ingest (RTMP, see lib/ingest/rtmp). 0 turns live ingest off on this node.
  RTMP_PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(1935)),
  // What publishers are told to connect to (dashboard, CLI): `rtmp://host:port/app`.
  RTMP_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^rtmps?$/ }).transform((value) => value.replace(/\/+$/, '')).optional()),
  // RTMPS ingest (RTMP inside TLS) on a port of its own; 0 turns it off. Without a certificate
  // (both files, PEM) a self-signed one is generated and kept in DATA_DIR.
  RTMPS_PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(1936)),
  RTMPS_CERT_FILE: z.preprocess(emptyAsUndefined, z.string().optional()),
  RTMPS_KEY_FILE: z.preprocess(emptyAsUndefined, z.string().optional()),
  // What publishers are told to connect to over TLS: `rtmps://host:port/app`.
  RTMPS_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^rtmps$/ }).transform((value) => value.replace(/\/+$/, '')).optional()),
  // SRT ingest (`srt://host:port?streamid={stream_key}&passphrase={srt_passphrase}`, Mux's form)
  // on one UDP port for every stream; 0 turns it off.
  SRT_PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(6001)),
  // What publishers are told to connect to: `srt://host:port`.
  SRT_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^srt$/ }).transform((value) => value.replace(/\/+$/, '')).optional()),
  // Broadcasts one node takes at once; a publisher beyond it is refused at connect.
  LIVE_MAX_STREAMS: positiveInt(2),
  // x264 preset of the live rungs encoded below the source (the source rung is passed through).
  LIVE_X264_PRESET: z.preprocess(emptyAsUndefined, z.enum(['ultrafast', 'superfast', 'veryfast', 'faster']).default('superfast')),
  REDIS_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^rediss?$/ }).optional()),
  // Lets deployments (or test runs) share one Redis without seeing each other's keys.
  REDIS_KEY_PREFIX: z.preprocess(emptyAsUndefined, z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/).default('keyframe')),
  KEYFRAME_ROLE: z.preprocess(emptyAsUndefined, z.enum(['all', 'http', 'worker']).default('all')),
  S3_BUCKET: z.preprocess(emptyAsUndefined, z.string().optional()),
  S3_ENDPOINT: optionalUrl,
  S3_REGION: z.preprocess(emptyAsUndefined, z.string().default('us-east-1')),
  S3_ACCESS_KEY_ID: z.preprocess(emptyAsUndefined, z.string().optional()),
  S3_SECRET_ACCESS_KEY: z.preprocess(emptyAsUndefined, z.string().optional()),
  S3_FORCE_PATH_STYLE: z.preprocess(emptyAsUndefined, z.enum(['true', 'false', '1', '0', 'yes', 'no']).optional()),
  S3_PUBLIC_URL: optionalUrl,
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
});

// `label` names the database in logs without its password.
/**
 * What a node runs. `all`: everything in one process (the default). `http`: the playback host and
 * the Next.js app. `worker`: jobs, webhook deliveries and maintenance, with only a health endpoint.
 */
export type NodeRole = 'all' | 'http' | 'worker';

/** Redis, when configured: jobs (BullMQ), the polling rate limit and the JIT encode lock move there. */
export type RedisConfig = { url: string; keyPrefix: string };
// Where Keyframe's files are stored. With S3, DATA_DIR is this node's cache of the bucket.
export type StorageConfig =
  | { driver: 'local-disk' }
  | {
      driver: 's3';
      bucket: string;
      /** Omitted for AWS itself. */
      endpoint?: string;
      region: string;
      accessKeyId: string;
      secretAccessKey: string;
      forcePathStyle: boolean;
      /**
       * Where the bucket's objects can be fetched by anyone (the bucket's public URL or a CDN in
       * front of it), as `<publicUrl>/<key>`: segments of public playback IDs are redirected there.
       */
      publicUrl?: string;
    };

export type Env = {
  role: NodeRole;
  redis: RedisConfig | null;
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  baseUrl: string;
  streamUrl: string;
  /** Origin of the embeddable player page. */
  playerUrl: string;
  /** The player page's CSP frame-ancestors source list. */
  playerFrameAncestors: string;
  /**
   * Playback analytics (Mux Data): the beacon-collection-domain players are given, how long views
   * are kept, when a view with no beacon is closed, and each client's beacon rate limit.
   */
  data: { collectorDomain: string; retentionDays: number; viewInactivityMs: number; beaconRate: { perSecond: number; burst: number } };
  dataDir: string;
  database: DatabaseConfig;
  storage: StorageConfig;
  ffmpegPath: string;
  ffprobePath: string;
  /** Speech recognition for generated captions: the binary and its US English model folder. */
  pocketsphinx: { path: string; modelDir: string };
  /** Live ingest: the RTMP port (null when off), the URL publishers use, and the node's limits. */
  live: {
    rtmpPort: number | null;
    /** Where the other nodes reach this one (NODE_URL), for live playback of its broadcasts. */
    nodeUrl: string;
    rtmpUrl: string;
    /** RTMPS: its port (null when off), the URL publishers use, and the operator's certificate files (none: self-signed). */
    rtmps: { port: number | null; url: string; certFile?: string; keyFile?: string };
    /** SRT: its UDP port (null when off) and the URL publishers use, without streamid and passphrase. */
    srt: { port: number | null; url: string };
    maxStreams: number;
    x264Preset: 'ultrafast' | 'superfast' | 'veryfast' | 'faster';
  };
  allowPrivateInputUrls: boolean;
  maxInputBytes: number;
  maxInputDurationSeconds: number;
  inputDownloadTimeoutMs: number;
  /** Lifetime of a temporary master URL; master access reverts to `none` after it. */
  masterAccessTtlSeconds: number;
  /** Ingests in flight at once (downloading, waiting for bytes or checking). */
  ingestConcurrency: number;
  /** Ingests whose CPU-bound steps (probe, decode checks) run at once. */
  ingestCpuConcurrency: number;
  jitEncodeConcurrency: number;
  renditionCacheMaxBytes: number;
  /** Free bytes on DATA_DIR's disk below which this node reports itself unhealthy; 0: not checked. */
  healthMinFreeDiskBytes: number;
  prefetchSegments: number;
  /** Playback worker processes holding the public port in front of this one; 0: none. */
  playbackWorkers: number;
  /** Bytes of hot stored files each playback worker keeps in memory. */
  playbackWorkerMemoryCacheBytes: number;
  // When no viewer needs the encoders, encode the rest of the ladders of watched assets.
  fillIdleEncoders: boolean;
  assetGetRate: { perSecond: number; burst: number };
  /** Proxy addresses/ranges whose X-Forwarded-For names the client; empty: the peer is the client. */
  trustedProxies: string[];
  // First retry delay of a failed webhook delivery; each further retry doubles it (capped at 1 h).
  webhookRetryBaseMs: number;
  webhookTimeoutMs: number;
  /** Bearer token `/metrics` requires; null: `/metrics` answers only requests from loopback addresses. */
  metricsToken: string | null;
  logLevel: string;
};

// mux-embed sends beacons over plain HTTP only to a host ending in `localhost[:port]`: a loopback
// base URL is given as localhost, the same server.
const defaultCollectorDomain = (baseUrl: string): string => {
  const url = new URL(baseUrl);
  const loopback = ['127.0.0.1', '[::1]', '0.0.0.0', 'localhost'].includes(url.hostname);
  return loopback ? `localhost${url.port ? `:${url.port}` : ''}` : url.host;
};

const sqliteDatabase = (filePath: string): DatabaseConfig => ({ provider: 'sqlite', filePath, label: `sqlite:${filePath}` });

const postgresDatabase = (databaseUrl: string): DatabaseConfig => {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error('DATABASE_URL is not a valid PostgreSQL URL (expected postgres://user:password@host:5432/database)');
  }
  if (!url.hostname && !url.searchParams.get('host')) throw new Error('DATABASE_URL names no PostgreSQL host');
  const schema = url.searchParams.get('schema') || 'public';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`DATABASE_URL: schema "${schema}" must be a plain identifier (letters, digits, underscores)`);
  }
  url.searchParams.delete('schema');
  const label = new URL(url);
  if (label.password) label.password = '***';
  return { provider: 'postgresql', url: url.toString(), schema, label: `${label.toString()}${schema === 'public' ? '' : ` (schema ${schema})`}` };
};

const parseDatabaseUrl = (databaseUrl: string | undefined, dataDir: string): DatabaseConfig => {
  if (!databaseUrl) return sqliteDatabase(path.join(dataDir, 'keyframe.db'));
  if (databaseUrl.startsWith('file:')) {
    const filePath = databaseUrl.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    return sqliteDatabase(path.resolve(filePath));
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return postgresDatabase(databaseUrl);
  throw new Error(
    `DATABASE_URL must be a SQLite "file:" URL or a PostgreSQL "postgres://" / "postgresql://" URL (got "${databaseUrl.split(':')[0]}:")`,
  );
};

// Split roles mean several processes, usually on several machines, sharing one database: a SQLite
// file cannot be that.
const checkRoleFitsDatabase = (role: NodeRole, database: DatabaseConfig): void => {
  if (role === 'all' || database.provider !== 'sqlite') return;
  throw new Error(
    `KEYFRAME_ROLE=${role} needs a database every node shares: set DATABASE_URL to a PostgreSQL URL (postgres://…). ` +
      `With SQLite (${database.filePath}) run one process with KEYFRAME_ROLE=all (the default).`,
  );
};

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

type RawEnv = z.infer<typeof rawEnvSchema>;

const parseRtmps = (raw: RawEnv, baseUrl: string): Env['live']['rtmps'] => {
  const { RTMPS_CERT_FILE: certFile, RTMPS_KEY_FILE: keyFile } = raw;
  if ((certFile === undefined) !== (keyFile === undefined)) throw new Error('RTMPS_CERT_FILE and RTMPS_KEY_FILE are set together (a PEM certificate and its key), or neither');
  return {
    port: raw.RTMPS_PORT === 0 ? null : raw.RTMPS_PORT,
    url: raw.RTMPS_URL ?? `rtmps://${new URL(baseUrl).hostname}:${raw.RTMPS_PORT || 1936}/app`,
    ...(certFile !== undefined && keyFile !== undefined && { certFile, keyFile }),
  };
};

const parseStorage = (raw: RawEnv): StorageConfig => {
  const { S3_BUCKET: bucket, S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey } = raw;
  if (!bucket) {
    const stray = (['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE', 'S3_PUBLIC_URL'] as const).filter((name) => raw[name] !== undefined);
    if (stray.length > 0) throw new Error(`${stray.join(', ')} ${stray.length === 1 ? 'is' : 'are'} set but S3_BUCKET is not; set S3_BUCKET to store files in S3`);
    return { driver: 'local-disk' };
  }
  if (!BUCKET_NAME.test(bucket)) throw new Error(`S3_BUCKET "${bucket}" is not a valid bucket name (3–63 lowercase letters, digits, dots, hyphens)`);
  const missing = (['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const).filter((name) => !raw[name]);
  if (!accessKeyId || !secretAccessKey) throw new Error(`S3_BUCKET is set, so ${missing.join(' and ')} must be set too`);
  // S3-compatible servers on a custom endpoint rarely have per-bucket host names; AWS prefers them.
  const forcePathStyle = raw.S3_FORCE_PATH_STYLE === undefined ? endpoint !== undefined : ['true', '1', 'yes'].includes(raw.S3_FORCE_PATH_STYLE);
  return {
    driver: 's3',
    bucket,
    ...(endpoint ? { endpoint } : {}),
    region: raw.S3_REGION,
    accessKeyId,
    secretAccessKey,
    forcePathStyle,
    ...(raw.S3_PUBLIC_URL ? { publicUrl: raw.S3_PUBLIC_URL } : {}),
  };
};

export const parseEnv = (source: Record<string, string | undefined>): Env => {
  const result = rawEnvSchema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid environment configuration:\n  ${problems.join('\n  ')}`);
  }
  const raw = result.data;
  const dataDir = path.resolve(raw.DATA_DIR);
  const baseUrl = raw.BASE_URL ?? `http://localhost:${raw.PORT}`;
  const database = parseDatabaseUrl(raw.DATABASE_URL, dataDir);
  checkRoleFitsDatabase(raw.KEYFRAME_ROLE, database);
  return {
    role: raw.KEYFRAME_ROLE,
    redis: raw.REDIS_URL ? { url: raw.REDIS_URL, keyPrefix: raw.REDIS_KEY_PREFIX } : null,
    nodeEnv: raw.NODE_ENV,
    port: raw.PORT,
    host: raw.HOST,
    baseUrl,
    streamUrl: raw.STREAM_URL ?? baseUrl,
    playerUrl: raw.PLAYER_URL ?? baseUrl,
    playerFrameAncestors: raw.PLAYER_FRAME_ANCESTORS,
    data: {
      collectorDomain: raw.DATA_COLLECTOR_DOMAIN ?? defaultCollectorDomain(baseUrl),
      retentionDays: raw.DATA_RETENTION_DAYS,
      viewInactivityMs: raw.DATA_VIEW_INACTIVITY_SECONDS * 1000,
      beaconRate: { perSecond: raw.DATA_BEACON_RATE_PER_SECOND, burst: raw.DATA_BEACON_RATE_BURST },
    },
    dataDir,
    database,
    storage: parseStorage(raw),
    ffmpegPath: raw.FFMPEG_PATH,
    ffprobePath: raw.FFPROBE_PATH,
    pocketsphinx: { path: raw.POCKETSPHINX_PATH, modelDir: raw.POCKETSPHINX_MODEL_DIR },
    live: {
      rtmpPort: raw.RTMP_PORT === 0 ? null : raw.RTMP_PORT,
      nodeUrl: (raw.NODE_URL ?? `http://127.0.0.1:${raw.PORT}`).replace(/\/+$/, ''),
      rtmpUrl: raw.RTMP_URL ?? `rtmp://${new URL(baseUrl).hostname}:${raw.RTMP_PORT || 1935}/app`,
      rtmps: parseRtmps(raw, baseUrl),
      srt: { port: raw.SRT_PORT === 0 ? null : raw.SRT_PORT, url: raw.SRT_URL ?? `srt://${new URL(baseUrl).hostname}:${raw.SRT_PORT || 6001}` },
      maxStreams: raw.LIVE_MAX_STREAMS,
      x264Preset: raw.LIVE_X264_PRESET,
    },
    allowPrivateInputUrls: raw.ALLOW_PRIVATE_INPUT_URLS,
    maxInputBytes: raw.MAX_INPUT_BYTES,
    maxInputDurationSeconds: raw.MAX_INPUT_DURATION_SECONDS,
    masterAccessTtlSeconds: raw.MASTER_ACCESS_TTL_SECONDS,
    inputDownloadTimeoutMs: raw.INPUT_DOWNLOAD_TIMEOUT_SECONDS * 1000,
    ingestConcurrency: raw.INGEST_CONCURRENCY,
    ingestCpuConcurrency: raw.INGEST_CPU_CONCURRENCY,
    jitEncodeConcurrency: raw.JIT_ENCODE_CONCURRENCY,
    renditionCacheMaxBytes: raw.RENDITION_CACHE_MAX_BYTES,
    healthMinFreeDiskBytes: raw.HEALTH_MIN_FREE_DISK_MB * 1024 ** 2,
    prefetchSegments: raw.PREFETCH_SEGMENTS,
    playbackWorkers: raw.PLAYBACK_WORKERS,
    playbackWorkerMemoryCacheBytes: raw.PLAYBACK_WORKER_MEMORY_CACHE_BYTES,
    fillIdleEncoders: raw.FILL_IDLE_ENCODERS,
    assetGetRate: { perSecond: raw.ASSET_GET_RATE_PER_SECOND, burst: raw.ASSET_GET_RATE_BURST },
    trustedProxies: raw.TRUSTED_PROXIES,
    webhookRetryBaseMs: Math.round(raw.WEBHOOK_RETRY_BASE_SECONDS * 1000),
    webhookTimeoutMs: Math.round(raw.WEBHOOK_TIMEOUT_SECONDS * 1000),
    metricsToken: raw.METRICS_TOKEN ?? null,
    logLevel: raw.LOG_LEVEL,
  };
};

declare module './runtime/node-runtime' {
  interface NodeRuntime {
    /** process.env, validated: parsed when first asked for, not at import, so `next build` can load route modules without a runtime configuration. */
    env: Env;
  }
}

export const getEnv = (): Env => nodeRuntime().env;
