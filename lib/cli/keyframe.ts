import { parseArgs } from 'node:util';
import { getDb } from '../db/client';
import { getEnv } from '../env';
import { createAccessToken } from '../services/access-tokens/create-access-token';
import { listAccessTokens } from '../services/access-tokens/list-access-tokens';
import { revokeAccessToken } from '../services/access-tokens/revoke-access-token';
import { prepareDatabase } from '../server/prepare-database';

// `npm run --silent keyframe -- <command>`: headless administration against the same DATA_DIR /
// DATABASE_URL as the server (safe while it runs). With --json only JSON is printed on stdout.

const USAGE = `Usage: keyframe <command> [options]

Commands:
  tokens create --name NAME [--read-only]   create an access token (the secret is shown once)
  tokens list                               list access tokens
  tokens revoke ID                          revoke an access token immediately

Options:
  --json     print machine-readable JSON only
  --help     show this help`;

class UsageError extends Error {}

type Output = { json: unknown; text: string };

const runCommand = async (positionals: string[], values: { name?: string; 'read-only'?: boolean }): Promise<Output> => {
  const [group, action, ...rest] = positionals;
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
      json: tokens.map((token) => ({
        id: token.id,
        name: token.name,
        permission: token.permission,
        created_at: token.createdAt.toISOString(),
        last_used_at: token.lastUsedAt?.toISOString() ?? null,
        revoked_at: token.revokedAt?.toISOString() ?? null,
      })),
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
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
      name: { type: 'string' },
      'read-only': { type: 'boolean', default: false },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(USAGE);
    return;
  }
  try {
    prepareDatabase(getEnv());
    const output = await runCommand(positionals, values);
    console.log(values.json ? JSON.stringify(output.json) : output.text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (values.json) console.log(JSON.stringify({ error: { message } }));
    else console.error(`keyframe: ${message}${error instanceof UsageError ? `\n\n${USAGE}` : ''}`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  } finally {
    await getDb().$disconnect();
  }
};

void main();
