import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseEnv } from './env';

describe('parseEnv', () => {
  test('needs no environment at all', () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      port: 3000,
      baseUrl: 'http://localhost:3000',
      streamUrl: 'http://localhost:3000',
      dataDir: path.resolve('./data'),
      database: { provider: 'sqlite', filePath: path.resolve('./data/keyframe.db') },
      ffmpegPath: 'ffmpeg',
      allowPrivateInputUrls: false,
      maxInputDurationSeconds: 43_200,
      fillIdleEncoders: true,
      ingestConcurrency: 32,
      ingestCpuConcurrency: os.availableParallelism(),
    });
  });

  test('RTMPS: on 1936 by default with a generated certificate; its URL follows BASE_URL; certificate and key go together', () => {
    expect(parseEnv({}).live.rtmps).toEqual({ port: 1936, url: 'rtmps://localhost:1936/app' });
    expect(parseEnv({ BASE_URL: 'https://video.example.com', RTMPS_PORT: '443' }).live.rtmps.url).toBe('rtmps://video.example.com:443/app');
    expect(parseEnv({ RTMPS_PORT: '0' }).live.rtmps.port).toBeNull();
    expect(parseEnv({ RTMPS_CERT_FILE: '/etc/keyframe/cert.pem', RTMPS_KEY_FILE: '/etc/keyframe/key.pem' }).live.rtmps).toMatchObject({ certFile: '/etc/keyframe/cert.pem', keyFile: '/etc/keyframe/key.pem' });
    expect(() => parseEnv({ RTMPS_CERT_FILE: '/etc/keyframe/cert.pem' })).toThrow(/RTMPS_CERT_FILE and RTMPS_KEY_FILE are set together/);
    expect(() => parseEnv({ RTMPS_URL: 'rtmp://plain.example.com/app' })).toThrow(/RTMPS_URL/);
  });

  test('SRT: on UDP 6001 by default; its URL follows BASE_URL; 0 turns it off', () => {
    expect(parseEnv({}).live.srt).toEqual({ port: 6001, url: 'srt://localhost:6001' });
    expect(parseEnv({ BASE_URL: 'https://video.example.com', SRT_PORT: '9000' }).live.srt.url).toBe('srt://video.example.com:9000');
    expect(parseEnv({ SRT_PORT: '0' }).live.srt.port).toBeNull();
    expect(() => parseEnv({ SRT_URL: 'rtmp://video.example.com/app' })).toThrow(/SRT_URL/);
  });

  test('derives BASE_URL from PORT and STREAM_URL from BASE_URL; trims trailing slashes', () => {
    expect(parseEnv({ PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
    const env = parseEnv({ BASE_URL: 'https://video.example.com/' });
    expect(env.baseUrl).toBe('https://video.example.com');
    expect(env.streamUrl).toBe('https://video.example.com');
  });

  test('reads booleans, limits and a file: DATABASE_URL', () => {
    const env = parseEnv({
      ALLOW_PRIVATE_INPUT_URLS: 'true',
      INPUT_DOWNLOAD_TIMEOUT_SECONDS: '5',
      DATABASE_URL: 'file:/tmp/x.db',
    });
    expect(env.allowPrivateInputUrls).toBe(true);
    expect(parseEnv({ FILL_IDLE_ENCODERS: 'false' }).fillIdleEncoders).toBe(false);
    expect(env.inputDownloadTimeoutMs).toBe(5000);
    expect(env.database).toEqual({ provider: 'sqlite', filePath: '/tmp/x.db', label: 'sqlite:/tmp/x.db' });
  });

  test('gives players a beacon collection domain mux-embed reaches: localhost for loopback, else the host', () => {
    expect(parseEnv({ PORT: '4100' }).data.collectorDomain).toBe('localhost:4100');
    expect(parseEnv({ BASE_URL: 'http://127.0.0.1:5000' }).data.collectorDomain).toBe('localhost:5000');
    expect(parseEnv({ BASE_URL: 'https://video.example.com' }).data.collectorDomain).toBe('video.example.com');
    expect(parseEnv({ DATA_COLLECTOR_DOMAIN: 'collector.example.com/beacons' }).data.collectorDomain).toBe('collector.example.com/beacons');
    expect(() => parseEnv({ DATA_COLLECTOR_DOMAIN: 'https://collector.example.com' })).toThrow(/DATA_COLLECTOR_DOMAIN/);
    expect(parseEnv({}).playerFrameAncestors).toBe('*');
    expect(parseEnv({ BASE_URL: 'https://video.example.com' }).playerUrl).toBe('https://video.example.com');
  });

  test('reads a PostgreSQL DATABASE_URL: either scheme, Prisma\'s schema parameter, no password in the label', () => {
    expect(parseEnv({ DATABASE_URL: 'postgres://kf:s3cret@db.internal:5432/keyframe?sslmode=require' }).database).toEqual({
      provider: 'postgresql',
      url: 'postgres://kf:s3cret@db.internal:5432/keyframe?sslmode=require',
      schema: 'public',
      label: 'postgres://kf:***@db.internal:5432/keyframe?sslmode=require',
    });
    expect(parseEnv({ DATABASE_URL: 'postgresql://kf@127.0.0.1/keyframe?schema=video' }).database).toEqual({
      provider: 'postgresql',
      url: 'postgresql://kf@127.0.0.1/keyframe',
      schema: 'video',
      label: 'postgresql://kf@127.0.0.1/keyframe (schema video)',
    });
  });

  test('TRUSTED_PROXIES: none by default, or a comma-separated list of addresses, ranges and names', () => {
    expect(parseEnv({}).trustedProxies).toEqual([]);
    expect(parseEnv({ TRUSTED_PROXIES: ' loopback, 10.0.0.0/8 ,2001:db8::1' }).trustedProxies).toEqual(['loopback', '10.0.0.0/8', '2001:db8::1']);
  });

  test('METRICS_TOKEN: none by default (loopback-only /metrics), or the token as given', () => {
    expect(parseEnv({}).metricsToken).toBeNull();
    expect(parseEnv({ METRICS_TOKEN: '' }).metricsToken).toBeNull();
    expect(parseEnv({ METRICS_TOKEN: 'Zx8-q1_w.E5r~T6y' }).metricsToken).toBe('Zx8-q1_w.E5r~T6y');
  });

  test('KEYFRAME_ROLE: all by default; http and worker need a shared (PostgreSQL) database', () => {
    expect(parseEnv({}).role).toBe('all');
    expect(parseEnv({ KEYFRAME_ROLE: 'all', DATABASE_URL: 'file:/tmp/x.db' }).role).toBe('all');
    expect(parseEnv({ KEYFRAME_ROLE: 'worker', DATABASE_URL: 'postgres://db.internal/keyframe' }).role).toBe('worker');
    expect(parseEnv({ KEYFRAME_ROLE: 'http', DATABASE_URL: 'postgres://db.internal/keyframe' }).role).toBe('http');
    expect(() => parseEnv({ KEYFRAME_ROLE: 'http' })).toThrow(/KEYFRAME_ROLE=http needs a database every node shares.*PostgreSQL/);
    expect(() => parseEnv({ KEYFRAME_ROLE: 'worker', DATABASE_URL: 'file:/tmp/x.db' })).toThrow(/KEYFRAME_ROLE=worker needs a database/);
  });

  test('REDIS_URL: none by default; a redis:// or rediss:// URL with a key prefix', () => {
    expect(parseEnv({}).redis).toBeNull();
    expect(parseEnv({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redis).toEqual({ url: 'redis://127.0.0.1:6379/2', keyPrefix: 'keyframe' });
    expect(parseEnv({ REDIS_URL: 'rediss://:pw@cache.internal:6380', REDIS_KEY_PREFIX: 'kf-prod' }).redis).toEqual({
      url: 'rediss://:pw@cache.internal:6380',
      keyPrefix: 'kf-prod',
    });
  });

  test('stores on local disk unless S3_BUCKET is set; S3 settings with their defaults', () => {
    expect(parseEnv({}).storage).toEqual({ driver: 'local-disk' });
    const credentials = { S3_ACCESS_KEY_ID: 'AKID', S3_SECRET_ACCESS_KEY: 'secret' };
    expect(parseEnv({ S3_BUCKET: 'videos', ...credentials }).storage).toEqual({
      driver: 's3',
      bucket: 'videos',
      region: 'us-east-1',
      accessKeyId: 'AKID',
      secretAccessKey: 'secret',
      forcePathStyle: false,
    });
    expect(parseEnv({ S3_BUCKET: 'videos', S3_ENDPOINT: 'http://127.0.0.1:9000/', S3_REGION: 'eu-1', ...credentials }).storage).toMatchObject({
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-1',
      forcePathStyle: true,
    });
    expect(parseEnv({ S3_BUCKET: 'videos', S3_ENDPOINT: 'https://s3.example.com', S3_FORCE_PATH_STYLE: 'false', ...credentials }).storage).toMatchObject({
      forcePathStyle: false,
    });
    expect(parseEnv({ S3_BUCKET: 'videos', S3_PUBLIC_URL: 'https://cdn.example.com/videos/', ...credentials }).storage).toMatchObject({
      publicUrl: 'https://cdn.example.com/videos',
    });
  });

  test.each([
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, /REDIS_URL/],
    [{ REDIS_URL: 'redis://x', REDIS_KEY_PREFIX: 'a b' }, /REDIS_KEY_PREFIX/],
    [{ KEYFRAME_ROLE: 'web' }, /KEYFRAME_ROLE/],
    [{ S3_BUCKET: 'videos' }, /S3_BUCKET is set, so S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set too/],
    [{ S3_BUCKET: 'videos', S3_ACCESS_KEY_ID: 'AKID' }, /S3_BUCKET is set, so S3_SECRET_ACCESS_KEY must be set too/],
    [{ S3_BUCKET: 'Videos!', S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 'b' }, /S3_BUCKET "Videos!" is not a valid bucket name/],
    [{ S3_ENDPOINT: 'http://127.0.0.1:9000' }, /S3_ENDPOINT is set but S3_BUCKET is not/],
    [{ S3_PUBLIC_URL: 'https://cdn.example.com', S3_ACCESS_KEY_ID: 'a' }, /S3_ACCESS_KEY_ID, S3_PUBLIC_URL are set but S3_BUCKET is not/],
    [{ S3_BUCKET: 'videos', S3_ENDPOINT: 'minio:9000', S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 'b' }, /S3_ENDPOINT/],
    [{ PORT: 'abc' }, /PORT/],
    [{ ALLOW_PRIVATE_INPUT_URLS: 'maybe' }, /ALLOW_PRIVATE_INPUT_URLS/],
    [{ BASE_URL: 'ftp://x' }, /BASE_URL/],
    [{ MAX_INPUT_BYTES: '-1' }, /MAX_INPUT_BYTES/],
    [{ DATABASE_URL: 'mysql://localhost/db' }, /DATABASE_URL must be a SQLite "file:" URL or a PostgreSQL "postgres:\/\/"/],
    [{ DATABASE_URL: 'postgres://localhost/db?schema=a;drop' }, /DATABASE_URL: schema "a;drop" must be a plain identifier/],
    [{ DATABASE_URL: 'postgres://' }, /DATABASE_URL names no PostgreSQL host/],
    [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN: must be at least 16 characters/],
    [{ TRUSTED_PROXIES: 'loopback,proxy.example' }, /TRUSTED_PROXIES: .*proxy\.example/],
    [{ METRICS_TOKEN: 'has a space in the middle' }, /METRICS_TOKEN: must be printable ASCII without spaces/],
  ])('rejects %j with a message naming the variable', (source, message) => {
    expect(() => parseEnv(source)).toThrow(message);
  });
});
