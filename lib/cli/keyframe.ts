import { parseArgs } from 'node:util';
import { getDb } from '../db/client';
import { getEnv } from '../env';
import { createAccessToken } from '../services/access-tokens/create-access-token';
import { listAccessTokens } from '../services/access-tokens/list-access-tokens';
import { revokeAccessToken } from '../services/access-tokens/revoke-access-token';
import { createWebhookEndpoint, InvalidWebhookUrlError } from '../services/webhooks/create-webhook-endpoint';
import { deleteWebhookEndpoint } from '../services/webhooks/delete-webhook-endpoint';
import { listWebhookEndpoints } from '../services/webhooks/list-webhook-endpoints';
import { isApiError } from '../errors/api-error';
import { serializeAccessToken } from '../schemas/access-token';
import { serializeWebhookEndpoint } from '../schemas/webhook-dashboard';
import { createUser } from '../services/users/create-user';
import { prepareDatabase } from '../server/prepare-database';
import { createNodeRuntime } from '../server/create-node-runtime';
import { installNodeRuntime } from '../runtime/node-runtime';
import { backupInstallation } from '../services/backup/backup-installation';
import type { BackupManifest } from '../services/backup/backup-layout';
import { restoreInstallation } from '../services/backup/restore-installation';

// `npm run --silent keyframe -- <command>`: headless administration against the same DATA_DIR /
// DATABASE_URL as the server (safe while it runs). With --json only JSON is printed on stdout.

const USAGE = `Usage: keyframe <command> [options]

Commands:
  tokens create --name NAME [--read-only]   create an access token (the secret is shown once)
  tokens list                               list access tokens
  tokens revoke ID                          revoke an access token immediately
  webhooks create --url URL                 send signed webhook events to URL (prints its signing secret)
  webhooks list                             list webhook endpoints with their secrets and delivery counts
  webhooks delete ID                        delete a webhook endpoint and its pending deliveries
  users create --email E --password P       create a dashboard user (the first one is the admin)
  backup DIR                                copy the database and kept media into DIR (safe while the server runs)
  restore DIR                               bring a backup back into a fresh DATA_DIR (the server stopped)

Options:
  --json     print machine-readable JSON only
  --help     show this help`;

class UsageError extends Error {}

type Output = { json: unknown; text: string };

type Values = { name?: string; 'read-only'?: boolean; url?: string; email?: string; password?: string; json?: boolean };

const runWebhooksCommand = async (action: string | undefined, rest: string[], values: Values): Promise<Output> => {
  if (action === 'create') {
    if (values.url === undefined) throw new UsageError('webhooks create needs --url URL');
    let endpoint: Awaited<ReturnType<typeof createWebhookEndpoint>>;
    try {
      endpoint = await createWebhookEndpoint({ url: values.url });
    } catch (error) {
      if (error instanceof InvalidWebhookUrlError) throw new UsageError(`--url: ${error.message}`);
      throw error;
    }
    return {
      json: { id: endpoint.id, url: endpoint.url, secret: endpoint.secret },
      text:
        `Created webhook endpoint\n  id:     ${endpoint.id}\n  url:    ${endpoint.url}\n  secret: ${endpoint.secret}\n\n` +
        'Every event is POSTed to the URL with a mux-signature header; verify it with this secret\n' +
        '(e.g. mux.webhooks.unwrap(body, headers, secret) from @mux/mux-node).',
    };
  }
  if (action === 'list') {
    const endpoints = await listWebhookEndpoints();
    return {
      json: endpoints.map(serializeWebhookEndpoint),
      text:
        endpoints.length > 0
          ? endpoints
              .map(
                ({ id, url, secret, createdAt, deliveries }) =>
                  `${id}  ${url}  secret ${secret}  created ${createdAt.toISOString()}` +
                  `  pending ${deliveries.pending}  delivered ${deliveries.delivered}  failed ${deliveries.failed}`,
              )
              .join('\n')
          : 'No webhook endpoints yet. Create one with: keyframe webhooks create --url URL',
    };
  }
  if (action === 'delete') {
    const [id] = rest;
    if (!id) throw new UsageError('webhooks delete needs the endpoint ID');
    if ((await deleteWebhookEndpoint({ id })) === 'not_found') throw new Error(`no webhook endpoint with id ${id}`);
    return { json: { id, deleted: true }, text: `Deleted webhook endpoint ${id}` };
  }
  throw new UsageError(`unknown webhooks command "${action ?? ''}"`);
};

// Headless equivalent of the dashboard's first-run "create the admin account" screen.
const runUsersCommand = async (action: string | undefined, values: Values): Promise<Output> => {
  if (action !== 'create') throw new UsageError(`unknown users command "${action ?? ''}"`);
  if (values.email === undefined || values.password === undefined) {
    throw new UsageError('users create needs --email EMAIL --password PASSWORD');
  }
  try {
    const user = await createUser({ email: values.email, password: values.password });
    return {
      json: { id: user.id, email: user.email, created_at: user.createdAt.toISOString() },
      text: `Created dashboard user ${user.email} (${user.id}); sign in at /sign-in`,
    };
  } catch (error) {
    if (isApiError(error)) throw new Error(error.messages.join('; '));
    throw error;
  }
};

const describeBackup = (what: string, manifest: BackupManifest) =>
  `${what}: ${manifest.assets} assets, ${manifest.files} files (${(manifest.bytes / 1024 ** 2).toFixed(1)} MiB)` +
  (manifest.deletedDuringBackup > 0 ? `; ${manifest.deletedDuringBackup} deleted during the backup left out` : '');

const runBackupCommand = async (directory: string | undefined, json: boolean): Promise<Output> => {
  if (!directory) throw new UsageError('backup needs the directory to write the backup to');
  const result = await backupInstallation(getEnv(), directory, { onPhase: (phase) => (json ? undefined : console.error(`keyframe backup: ${phase}`)) });
  return { json: result, text: describeBackup(`Backed up into ${result.directory}`, result) };
};

// Before anything opens the database: a restore goes into a DATA_DIR nothing has touched.
const runRestoreCommand = async (directory: string | undefined): Promise<Output> => {
  if (!directory) throw new UsageError('restore needs the backup directory');
  const result = await restoreInstallation(getEnv(), directory);
  return { json: result, text: `${describeBackup(`Restored into ${result.dataDir}`, result)}
Start the server on this DATA_DIR.` };
};

const runCommand = async (positionals: string[], values: Values): Promise<Output> => {
  const [group, action, ...rest] = positionals;
  if (group === 'backup') return runBackupCommand(action, values.json === true);
  if (group === 'webhooks') return runWebhooksCommand(action, rest, values);
  if (group === 'users') return runUsersCommand(action, values);
  if (group !== 'tokens') throw new UsageError(`unknown command "${positionals.join(' ')}"`);

  if (action === 'create') {
    if (!values.name?.trim()) throw new UsageError('tokens create needs --name NAME');
    const token = await createAccessToken({
      name: values.name.trim(),
      permission: values['read-only'] ? 'read_only' : 'read_write',
    });
    return {
      json: { id: token.id, secret: token.secret, name: token.name, permission: token.permission },
      text: `Created access token "${token.name}" (${token.permission})\n  id:     ${token.id}\n  secret: ${token.secret}\n\nThe secret is shown only once; store it now.`,
    };
  }
  if (action === 'list') {
    const tokens = await listAccessTokens();
    const lines = tokens.map(
      (token) =>
        `${token.id}  ${token.name}  ${token.permission}  created ${token.createdAt.toISOString()}` +
        `  last used ${token.lastUsedAt?.toISOString() ?? 'never'}${token.revokedAt ? '  REVOKED' : ''}`,
    );
    return {
      json: tokens.map(serializeAccessToken),
      text: lines.length > 0 ? lines.join('\n') : 'No access tokens yet. Create one with: keyframe tokens create --name NAME',
    };
  }
  if (action === 'revoke') {
    const [id] = rest;
    if (!id) throw new UsageError('tokens revoke needs the token ID');
    const outcome = await revokeAccessToken({ id });
    if (outcome === 'not_found') throw new Error(`no access token with id ${id}`);
    return { json: { id, revoked: true }, text: outcome === 'revoked' ? `Revoked ${id}` : `${id} was already revoked` };
  }
  throw new UsageError(`unknown tokens command "${action ?? ''}"`);
};

const main = async () => {
  installNodeRuntime(createNodeRuntime());
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
      name: { type: 'string' },
      'read-only': { type: 'boolean', default: false },
      url: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(USAGE);
    return;
  }
  const restoring = positionals[0] === 'restore';
  try {
    if (!restoring) await prepareDatabase(getEnv());
    const output = restoring ? await runRestoreCommand(positionals[1]) : await runCommand(positionals, values);
    console.log(values.json ? JSON.stringify(output.json) : output.text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (values.json) console.log(JSON.stringify({ error: { message } }));
    else console.error(`keyframe: ${message}${error instanceof UsageError ? `\n\n${USAGE}` : ''}`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  } finally {
    if (!restoring) await getDb().$disconnect();
  }
};

void main();
