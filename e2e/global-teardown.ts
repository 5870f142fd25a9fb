import { rmSync } from 'node:fs';
import { FIXTURES_DIR_ENV } from './support/fixtures';

export default async function globalTeardown(): Promise<void> {
  const dir = process.env[FIXTURES_DIR_ENV];
  if (dir) rmSync(dir, { recursive: true, force: true });
}
