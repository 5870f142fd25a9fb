import { z } from 'zod';
import { notFound } from '@/lib/http/api-error';
import { dataResponse } from '@/lib/http/respond';
import { withDashboard } from '@/lib/http/with-dashboard';
import { revokeAccessToken } from '@/lib/services/access-tokens/revoke-access-token';

export const dynamic = 'force-dynamic';

// DELETE /api/dashboard/access-tokens/{TOKEN_ID} – revoke; the token stops working on its next request
export const DELETE = withDashboard(
  async ({ params }) => {
    if ((await revokeAccessToken({ id: params.tokenId })) === 'not_found') throw notFound('Access token');
    return dataResponse({ id: params.tokenId, revoked: true });
  },
  { params: z.object({ tokenId: z.string().min(1).max(100) }) },
);
