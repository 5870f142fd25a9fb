import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSecureContext } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateRtmpsIdentity } from './rtmps-certificate';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'keyframe-rtmps-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('loadOrCreateRtmpsIdentity', () => {
  it('makes a self-signed certificate for the ingest host once, and presents the same one after a restart', async () => {
    const first = await loadOrCreateRtmpsIdentity({ dataDir, hostname: 'live.example.test' });
    expect(first.generated).toBe(true);
    const certificate = new X509Certificate(first.cert);
    expect(certificate.subjectAltName).toContain('DNS:live.example.test');
    expect(certificate.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(certificate.checkPrivateKey(createPrivateKey(first.key))).toBe(true);
    expect(new Date(certificate.validTo).getTime()).toBeGreaterThan(Date.now() + 365 * 86_400_000);
    expect(() => createSecureContext({ cert: first.cert, key: first.key })).not.toThrow();

    const again = await loadOrCreateRtmpsIdentity({ dataDir, hostname: 'live.example.test' });
    expect(again.cert).toBe(first.cert);
    expect(again.key).toBe(first.key);
    const stored = await stat(path.join(dataDir, 'rtmps', 'identity.pem'));
    expect(stored.mode & 0o077, 'the key file is readable by its owner only').toBe(0);
  }, 30_000);

  it("reads an operator's certificate and key as they are", async () => {
    const generated = await loadOrCreateRtmpsIdentity({ dataDir, hostname: 'live.example.test' });
    const certFile = path.join(dataDir, 'operator-cert.pem');
    const keyFile = path.join(dataDir, 'operator-key.pem');
    await writeFile(certFile, generated.cert);
    await writeFile(keyFile, generated.key);
    const operator = await loadOrCreateRtmpsIdentity({ dataDir, certFile, keyFile, hostname: 'ignored' });
    expect(operator).toEqual({ cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8'), generated: false });
  });

  it('refuses a damaged stored identity, saying what to do', async () => {
    const damaged = await mkdtemp(path.join(os.tmpdir(), 'keyframe-rtmps-damaged-'));
    try {
      await mkdir(path.join(damaged, 'rtmps'));
      await writeFile(path.join(damaged, 'rtmps', 'identity.pem'), 'not a pem file');
      await expect(loadOrCreateRtmpsIdentity({ dataDir: damaged, hostname: 'x' })).rejects.toThrow(/move it away/);
    } finally {
      await rm(damaged, { recursive: true, force: true });
    }
  });
});
