import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { getDb } from '../../db/client';
import type { SigningKeyRecord } from '../../schemas/signing-key';
import { generateId } from '../../utils/ids';

const generateRsaKeyPair = promisify(generateKeyPair);

// POST /system/v1/signing-keys: a 2048-bit RSA key pair. The private key is returned once, as
// Mux returns it (base64 of a PKCS#1 PEM), and never stored.
export const createSigningKey = async (): Promise<{ key: SigningKeyRecord; privateKey: string }> => {
  const { publicKey, privateKey } = await generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const key = await getDb().signingKey.create({
    data: { id: generateId(), publicKeyPem: publicKey },
    select: { id: true, createdAt: true },
  });
  return { key, privateKey: Buffer.from(privateKey).toString('base64') };
};
