import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Entry points run from source (lib/server, lib/cli under tsx) or from the server bundle in
// .next/keyframe/: either way the repository root is two folders up.
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const sqliteMigrationsDir = path.join(projectRoot, 'prisma', 'migrations');
export const postgresMigrationsDir = path.join(projectRoot, 'prisma', 'postgres', 'migrations');

/** The card a live stream's reconnect slate shows when it names no image of its own. */
export const defaultSlatePath = path.join(projectRoot, 'public', 'live', 'default-slate.png');
