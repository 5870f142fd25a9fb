import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Db } from '../db/client';
import { settleInstanceSetting } from '../db/instance-settings';
import { nodeRuntime } from '../runtime/node-runtime';
import { entryOf } from '../utils/map-entry';

// Keys this installation needs but nobody should have to configure: generated on first use and
// kept in DATA_DIR/secrets.json (mode 0600), so `npm start` works with no environment at all and
// the server and the CLI agree on them. The database holds the installation's copy: at start each
// node adopts it (or, first, contributes its own), so upload URLs, playback proofs and dashboard
// sessions made by one node are accepted by every other.

const secretsSchema = z.object({
  uploadUrlKey: z.string().min(43),
  sessionSecret: z.string().min(43),
  // Added after the first release: filled in on first use by `withAllSecrets`.
  playbackProofKey: z.string().min(43).optional(),
});

export type InstanceSecrets = Required<z.infer<typeof secretsSchema>>;
type StoredSecrets = z.infer<typeof secretsSchema>;

const newSecret = () => randomBytes(32).toString('base64url');

const writeAtomically = (file: string, secrets: StoredSecrets, publish: (temporary: string) => void) => {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    publish(temporary);
  } finally {
    rmSync(temporary, { force: true });
  }
};

// A file written by an older version lacks newer keys: add them, keeping the existing ones.
const withAllSecrets = (file: string, stored: StoredSecrets): InstanceSecrets => {
  if (stored.playbackProofKey) return { ...stored, playbackProofKey: stored.playbackProofKey };
  const upgraded = { ...stored, playbackProofKey: newSecret() };
  writeAtomically(file, upgraded, (temporary) => renameSync(temporary, file));
  return upgraded;
};

const readSecrets = (file: string): StoredSecrets | undefined => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = secretsSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} is not a valid Keyframe secrets file; move it away to generate a new one`);
  return parsed.data;
};

// Written to a temporary name and hard-linked into place, which fails if another process (server
// or CLI) won the race; both then read the same, complete file.
const createSecrets = (file: string): StoredSecrets => {
  const secrets: InstanceSecrets = { uploadUrlKey: newSecret(), sessionSecret: newSecret(), playbackProofKey: newSecret() };
  try {
    writeAtomically(file, secrets, (temporary) => linkSync(temporary, file));
    return secrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const existing = readSecrets(file);
    if (!existing) throw error;
    return existing;
  }
};

export const loadInstanceSecrets = (dataDir: string): InstanceSecrets => {
  const file = path.join(dataDir, 'secrets.json');
  return withAllSecrets(file, readSecrets(file) ?? createSecrets(file));
};

declare module '../runtime/node-runtime' {
  interface NodeRuntime {
    /** Loaded once per data directory (tests run several installations in one process). */
    instanceSecrets: Map<string, { secrets: InstanceSecrets }>;
  }
}

export const createInstanceSecretsCache = (): Map<string, { secrets: InstanceSecrets }> => new Map();

const cachedSecrets = (dataDir: string): { secrets: InstanceSecrets } =>
  entryOf(nodeRuntime().instanceSecrets, dataDir, () => ({ secrets: loadInstanceSecrets(dataDir) }));

export const instanceSecrets = (dataDir: string): InstanceSecrets => cachedSecrets(dataDir).secrets;

const SECRET_NAMES = ['uploadUrlKey', 'sessionSecret', 'playbackProofKey'] as const;

/**
 * Makes this node's secrets the installation's (stored in the database; the first node to start
 * contributes its own) and writes them to DATA_DIR/secrets.json for the CLI. Run at start, after
 * migrations and before anything signs or verifies.
 */
export const adoptInstallationSecrets = async (dataDir: string, db?: Db): Promise<{ changed: boolean }> => {
  const local = instanceSecrets(dataDir);
  const shared = { ...local };
  for (const name of SECRET_NAMES) shared[name] = await settleInstanceSetting(`secret.${name}`, local[name], db);
  const changed = SECRET_NAMES.some((name) => shared[name] !== local[name]);
  if (changed) {
    writeAtomically(path.join(dataDir, 'secrets.json'), shared, (temporary) => renameSync(temporary, path.join(dataDir, 'secrets.json')));
    cachedSecrets(dataDir).secrets = shared;
  }
  return { changed };
};
