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
    expect(env.database.filePath).toBe('/tmp/x.db');
  });

  test.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ ALLOW_PRIVATE_INPUT_URLS: 'maybe' }, /ALLOW_PRIVATE_INPUT_URLS/],
    [{ BASE_URL: 'ftp://x' }, /BASE_URL/],
    [{ MAX_INPUT_BYTES: '-1' }, /MAX_INPUT_BYTES/],
    [{ DATABASE_URL: 'postgres://localhost/db' }, /PostgreSQL is not supported yet/],
  ])('rejects %j with a message naming the variable', (source, message) => {
    expect(() => parseEnv(source)).toThrow(message);
  });
});
