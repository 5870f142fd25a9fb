import tseslint from 'typescript-eslint';

// Besides TypeScript hygiene, this enforces the dependency direction of the house style:
// route handlers → lib/http → lib/services → lib/db, and lib/media / lib/ingest as libraries that
// never read configuration or the database.

const restrict = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});

const noEnvOrDb = [
  { group: ['**/env', '@/lib/env'], message: 'Take configuration as parameters; only server modules read lib/env.' },
  { group: ['**/db/*', '@/lib/db/*'], message: 'Only services, jobs, the worker and auth touch the database.' },
];

export default tseslint.config(
  { ignores: ['.next/**', 'node_modules/**', 'lib/db/generated/**', 'lib/db/generated-pg/**', 'e2e/.artifacts/**', 'data/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  restrict(['lib/media/**', 'lib/ingest/**', 'lib/schemas/**'], [
    ...noEnvOrDb,
    { group: ['**/services/*', '**/http/*', '**/jobs/*', '**/worker/*', '**/server/*', 'next', 'next/*'], message: 'Library code stays framework-free.' },
  ]),
  restrict(['app/**'], [
    { group: ['@/lib/db/*', '@/lib/media/*', '@/lib/jobs/*', '@/lib/worker/*', '@/lib/server/*', '@/lib/ingest/*'], message: 'Route handlers call lib/http and lib/services only.' },
  ]),
  restrict(['components/**'], [
    {
      group: ['**/lib/db/*', '**/lib/services/*', '**/lib/jobs/*', '**/lib/worker/*', '**/lib/server/*', '**/lib/media/*', '**/lib/env', '@/lib/db/*', '@/lib/services/*', '@/lib/jobs/*', '@/lib/worker/*', '@/lib/server/*', '@/lib/media/*', '@/lib/env'],
      message: 'Components talk to the server through components/hooks (dashboard JSON routes), never to its internals.',
    },
  ]),
  restrict(['lib/services/**'], [
    { group: ['next', 'next/*', '**/http/*'], message: 'Services know nothing of HTTP; they throw lib/errors.' },
    { group: ['**/worker/*', '**/server/*', '**/cli/*'], message: 'Services sit below the roles (lib/worker, lib/server, lib/cli): those call down into them.' },
  ]),
  // lib/jobs is the queue (enqueue, signals) that services import; the worker role that runs the
  // jobs with the services (lib/worker) sits above them, beside lib/server.
  restrict(['lib/jobs/**'], [
    { group: ['next', 'next/*', '**/http/*'], message: 'Nothing below lib/http imports from it.' },
    { group: ['**/services/*', '**/worker/*', '**/server/*', '**/cli/*'], message: 'The job queue sits below services and the roles: they import it, never the other way.' },
  ]),
  restrict(['lib/auth/**', 'lib/storage/**', 'lib/db/**', 'lib/errors/**', 'lib/utils/**'], [
    { group: ['next', 'next/*', '**/http/*'], message: 'Nothing below lib/http imports from it.' },
  ]),
  restrict(['lib/http/**'], [{ group: ['**/db/*'], message: 'lib/http goes through lib/services or lib/auth.' }]),
  // Every layer records metrics, so lib/metrics depends on none of them: state kept elsewhere (the
  // job queue, the encoder) is handed to it at scrape time by lib/services/metrics.
  restrict(['lib/metrics/**'], [
    ...noEnvOrDb,
    { group: ['**/services/*', '**/http/*', '**/jobs/*', '**/worker/*', '**/server/*', 'next', 'next/*'], message: 'lib/metrics depends on no layer that records into it.' },
  ]),
);
