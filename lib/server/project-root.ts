import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Entry points (server, CLI) run from source under tsx, so the repository root is two folders up.
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const sqliteMigrationsDir = path.join(projectRoot, 'prisma', 'migrations');
