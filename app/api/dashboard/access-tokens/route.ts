import { z } from 'zod';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { serializeAccessToken, serializeCreatedAccessToken, TOKEN_PERMISSIONS } from '@/lib/schemas/access-token';
import { createAccessToken } from '@/lib/services/access-tokens/create-access-token';
import { listAccessTokens } from '@/lib/services/access-tokens/list-access-tokens';

export const dynamic = 'force-dynamic';

// GET /api/dashboard/access-tokens – tokens without secrets, newest first
export const GET = withDashboard(async () => dataResponse((await listAccessTokens()).map(serializeAccessToken)));

// POST /api/dashboard/access-tokens – the only response that ever contains the secret
export const POST = withDashboard(
  async ({ body }) => {
    const token = await createAccessToken({ name: body.name.trim(), permission: body.permission });
    return dataResponse(serializeCreatedAccessToken(token), 201);
  },
  {
    body: z.object({
      name: z.string().trim().min(1, { error: 'must not be empty' }).max(100),
      permission: z.enum(TOKEN_PERMISSIONS),
    }),
  },
);
