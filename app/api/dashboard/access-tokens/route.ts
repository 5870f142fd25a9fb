import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { createAccessToken } from '@/lib/services/access-tokens/create-access-token';
import { listAccessTokens } from '@/lib/services/access-tokens/list-access-tokens';

export const dynamic = 'force-dynamic';

const iso = (date: Date | null) => date?.toISOString() ?? null;

// GET /api/dashboard/access-tokens – tokens without secrets, newest first
export const GET = withDashboard(async () =>
  dataResponse(
    (await listAccessTokens()).map((token) => ({
      id: token.id,
      name: token.name,
      permission: token.permission,
      created_at: token.createdAt.toISOString(),
      last_used_at: iso(token.lastUsedAt),
      revoked_at: iso(token.revokedAt),
    })),
  ),
);

// POST /api/dashboard/access-tokens – the only response that ever contains the secret
export const POST = withDashboard(
  async ({ body }) => {
    const token = await createAccessToken({ name: body.name.trim(), permission: body.permission });
    return dataResponse(
      { id: token.id, secret: token.secret, name: token.name, permission: token.permission, created_at: token.createdAt.toISOString() },
      201,
    );
  },
  {
    body: z.object({
      name: z.string().trim().min(1, { error: 'must not be empty' }).max(100),
      permission: z.enum(['read_write', 'read_only']),
    }),
  },
);
