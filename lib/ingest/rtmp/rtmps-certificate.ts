import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { generate } from 'selfsigned';

export type TlsIdentity = { cert: string; key: string };

// Encoders speaking RTMPS need a certificate. An operator's (RTMPS_CERT_FILE / RTMPS_KEY_FILE) is
// read as it is; without one a self-signed certificate for the ingest host is made on first start
// and kept in DATA_DIR, so a restart presents the same one (an encoder told to trust it keeps
// trusting it). Encoders that check certificates against the system's authorities (OBS does)
// accept it only once trusted; ffmpeg and most hardware encoders do not check.

const GENERATED_DIR = 'rtmps';
const VALID_DAYS = 3650;

export const loadOrCreateRtmpsIdentity = async ({
  dataDir,
  certFile,
  keyFile,
  hostname,
}: {
  dataDir: string;
  certFile?: string;
  keyFile?: string;
  /** The host publishers connect to (RTMPS_URL's), named by the generated certificate. */
  hostname: string;
}): Promise<TlsIdentity & { generated: boolean }> => {
  if (certFile && keyFile) return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8'), generated: false };
  const dir = path.join(dataDir, GENERATED_DIR);
  const stored = await readGenerated(dir);
  if (stored) return { ...stored, generated: true };
  const made = await selfSigned(hostname);
  return { ...(await keepFirst(dir, made)), generated: true };
};

// Certificate and key in one file, so that it is written whole or not at all.
const identityFile = (dir: string) => path.join(dir, 'identity.pem');

const PEM_BLOCK = /-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----\r?\n?/g;

const readGenerated = async (dir: string): Promise<TlsIdentity | null> => {
  let text: string;
  try {
    text = await readFile(identityFile(dir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const blocks = [...text.matchAll(PEM_BLOCK)];
  const cert = blocks.find((block) => block[1] === 'CERTIFICATE')?.[0];
  const key = blocks.find((block) => block[1]?.endsWith('PRIVATE KEY'))?.[0];
  if (!cert || !key) throw new Error(`${identityFile(dir)} does not hold a certificate and a private key; move it away to generate a new one`);
  return { cert: asPem(cert), key: asPem(key) };
};

const asPem = (block: string): string => `${block.trim()}\n`;

const selfSigned = async (hostname: string): Promise<TlsIdentity> => {
  const names = new Set([hostname, 'localhost', '127.0.0.1', '::1']);
  const notAfterDate = new Date(Date.now() + VALID_DAYS * 86_400_000);
  const pems = await generate([{ name: 'commonName', value: hostname }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [...names].map((name) => (isIP(name) ? { type: 7 as const, ip: name } : { type: 2 as const, value: name })) },
    ],
  });
  return { cert: asPem(pems.cert), key: asPem(pems.private) };
};

// Written to a temporary name and linked into place, which fails if another process (a node on
// the same DATA_DIR) won the race; both then use the winner's.
const keepFirst = async (dir: string, made: TlsIdentity): Promise<TlsIdentity> => {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(dir, `identity.pem.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, made.cert + made.key, { mode: 0o600 });
    await link(temp, identityFile(dir));
    return made;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = await readGenerated(dir);
    if (!winner) throw error;
    return winner;
  } finally {
    await rm(temp, { force: true });
  }
};
