// The API end-to-end suite a second time, on PostgreSQL: every server it starts gets a database of
// its own on the PostgreSQL at 127.0.0.1:5432 (CI has one; see e2e/support/e2e-database.ts). A
// machine without one skips it, saying so, so `npm test` still passes on a fresh machine.
import { spawnSync } from 'node:child_process';
import { portAnswers } from './port-answers.mjs';

const HOST = '127.0.0.1';
const PORT = 5432;
const ADMIN_URL = `postgres://postgres@${HOST}:${PORT}/postgres`;


if (!(await portAnswers(HOST, PORT))) {
  console.log(`PostgreSQL does not answer at ${HOST}:${PORT}; skipping the API suite on PostgreSQL.`);
  process.exit(0);
}
const run = spawnSync('npx', ['playwright', 'test', '-c', 'e2e', '--project', 'api'], {
  stdio: 'inherit',
  env: { ...process.env, E2E_DATABASE_URL: process.env.E2E_DATABASE_URL || ADMIN_URL },
});
process.exit(run.status ?? 1);
