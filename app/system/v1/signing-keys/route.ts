import { dataResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { pageQuerySchema } from '@/lib/schemas/common';
import { serializeSigningKey } from '@/lib/schemas/signing-key';
import { createSigningKey } from '@/lib/services/signing-keys/create-signing-key';
import { listSigningKeys } from '@/lib/services/signing-keys/list-signing-keys';

export const dynamic = 'force-dynamic';

// POST /system/v1/signing-keys – a new key; the private key is in this response only
export const POST = withApi(async () => {
  const { key, privateKey } = await createSigningKey();
  return dataResponse(serializeSigningKey(key, { privateKey }), 201);
});

// GET /system/v1/signing-keys – list keys (never their private halves)
export const GET = withApi(
  async ({ query }) => dataResponse((await listSigningKeys({ limit: query.limit, page: query.page })).map((key) => serializeSigningKey(key))),
  { query: pageQuerySchema },
);
