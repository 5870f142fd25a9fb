import { nodeRuntime } from '../../runtime/node-runtime';
import { LookupCache } from '../../utils/lookup-cache';

// The verifier's copies of signing keys' public halves, read through by findSigningPublicKey
// (find-signing-public-key.ts). Kept apart from that lookup so that what drops a copy (deleting the key,
// another node's word that it was deleted) imports this cache and nothing more.

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    /** By key id. */
    signingPublicKeys: LookupCache<{ pem: string }>;
  }
}

const PUBLIC_KEY_TTL_MS = 60_000;

export const createSigningPublicKeys = () => new LookupCache<{ pem: string }>({ maxEntries: 10_000, ttlMs: PUBLIC_KEY_TTL_MS });

export const signingPublicKeys = (): LookupCache<{ pem: string }> => nodeRuntime().signingPublicKeys;

export const forgetSigningPublicKey = (keyId: string): void => signingPublicKeys().forget(keyId);
