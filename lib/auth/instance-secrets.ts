import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { processSingleton } from '../utils/process-singleton';

// Keys this installation needs but nobody should have to configure: generated on first use and
// kept in DATA_DIR/secrets.json (mode 0600), so `npm start` works with no environment at all and
// the server and the CLI agree on them.

const secretsSchema = z.object({
  uploadUrlKey: z.string().min(43),
  sessionSecret: z.string().min(43),
});

export type InstanceSecrets = z.infer<typeof secretsSchema>;

const newSecret = () => randomBytes(32).toString('base64url');

const readSecrets = (file: string): InstanceSecrets | undefined => {
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
const createSecrets = (file: string): InstanceSecrets => {
  const secrets: InstanceSecrets = { uploadUrlKey: newSecret(), sessionSecret: newSecret() };
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, file);
    return secrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const existing = readSecrets(file);
    if (!existing) throw error;
    return existing;
  } finally {
    rmSync(temporary, { force: true });
  }
};

export const loadInstanceSecrets = (dataDir: string): InstanceSecrets => {
  const file = path.join(dataDir, 'secrets.json');
  return readSecrets(file) ?? createSecrets(file);
};

export const instanceSecrets = (dataDir: string): InstanceSecrets =>
  processSingleton(`instance-secrets:${dataDir}`, () => loadInstanceSecrets(dataDir));
