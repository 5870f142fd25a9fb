import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { loadInstanceSecrets } from './instance-secrets';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-secrets-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('loadInstanceSecrets', () => {
  test('generates the secrets once, private to the owner, and reads the same ones afterwards', () => {
    const dir = tempDir();
    const first = loadInstanceSecrets(dir);
    expect(first.uploadUrlKey).toMatch(/^[\w-]{43}$/);
    expect(new Set([first.uploadUrlKey, first.sessionSecret, first.playbackProofKey]).size).toBe(3);
    expect(statSync(path.join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(loadInstanceSecrets(dir)).toEqual(first);
  });

  test('adds keys missing from a file written by an older version and keeps the existing ones', () => {
    const dir = tempDir();
    const old = { uploadUrlKey: 'u'.repeat(43), sessionSecret: 's'.repeat(43) };
    writeFileSync(path.join(dir, 'secrets.json'), JSON.stringify(old), { mode: 0o600 });
    const upgraded = loadInstanceSecrets(dir);
    expect(upgraded).toMatchObject(old);
    expect(upgraded.playbackProofKey).toMatch(/^[\w-]{43}$/);
    expect(JSON.parse(readFileSync(path.join(dir, 'secrets.json'), 'utf8'))).toEqual(upgraded);
  });

  test('refuses a damaged file instead of silently replacing the keys', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'secrets.json'), JSON.stringify({ uploadUrlKey: 'short' }));
    expect(() => loadInstanceSecrets(dir)).toThrow(/not a valid Keyframe secrets file/);
  });
});
