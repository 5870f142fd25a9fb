import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Token secrets and passwords are stored as scrypt hashes: `scrypt$N$r$p$salt$hash` (base64url).

const scrypt = (secret: string, salt: Buffer, keyLength: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => {
    scryptCallback(secret, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });

const PARAMS = { N: 16_384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

export const hashSecret = async (secret: string): Promise<string> => {
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, KEY_LENGTH, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
};

export const verifySecret = async (secret: string, stored: string): Promise<boolean> => {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
};

// A fast, non-reversible fingerprint used only as an in-memory cache key, never stored.
export const fingerprint = (value: string): string => createHash('sha256').update(value).digest('base64url');
