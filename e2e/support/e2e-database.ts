import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import type { OwnedDatabase } from '../../harness/keyframe-process';

// With E2E_DATABASE_URL=postgres://… (a server and a user allowed to create databases, e.g.
// postgres://postgres@127.0.0.1:5432/postgres) every Keyframe server the suite starts gets a
// PostgreSQL database of its own, created empty and dropped when the server is disposed; a
// restarted server keeps its predecessor's database, as it keeps its DATA_DIR. Without it, servers
// use their default SQLite file in DATA_DIR.

export const E2E_DATABASE_URL = process.env.E2E_DATABASE_URL || undefined;

export type E2eDatabase = { name: string; url: string };

const withAdmin = async <T>(adminUrl: string, run: (admin: pg.Client) => Promise<T>): Promise<T> => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
};

export const createE2eDatabase = async (adminUrl: string): Promise<E2eDatabase> => {
  const name = `keyframe_e2e_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
};

export const dropE2eDatabase = async (adminUrl: string, database: E2eDatabase): Promise<void> => {
  await withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${database.name}" WITH (FORCE)`));
};

/** For process-exit cleanup, where nothing asynchronous runs any more: drops them in a child process. */
export const dropE2eDatabasesSync = (adminUrl: string, databases: E2eDatabase[]): void => {
  if (databases.length === 0) return;
  const script = `const pg = require('pg'); (async () => { const c = new pg.Client({ connectionString: process.argv[1] }); await c.connect();
    for (const name of process.argv.slice(2)) await c.query('DROP DATABASE IF EXISTS "' + name + '" WITH (FORCE)'); await c.end(); })();`;
  spawnSync(process.execPath, ['-e', script, adminUrl, ...databases.map((database) => database.name)], { stdio: 'ignore', timeout: 10_000 });
};

// Last-resort cleanup if a worker exits without disposing its servers.
const ownedDatabases = new Set<E2eDatabase>();
process.once('exit', () => {
  if (E2E_DATABASE_URL) dropE2eDatabasesSync(E2E_DATABASE_URL, [...ownedDatabases]);
});

/** A fresh database on E2E_DATABASE_URL for one server (KeyframeProcess's freshDatabase), or undefined without it. */
export const freshE2eDatabase = (): (() => Promise<OwnedDatabase>) | undefined => {
  const adminUrl = E2E_DATABASE_URL;
  if (!adminUrl) return undefined;
  return async () => {
    const database = await createE2eDatabase(adminUrl);
    ownedDatabases.add(database);
    return {
      url: database.url,
      drop: async () => {
        await dropE2eDatabase(adminUrl, database);
        ownedDatabases.delete(database);
      },
    };
  };
};
