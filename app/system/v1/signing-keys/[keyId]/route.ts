import { z } from 'zod';
import { dataResponse, noContentResponse } from '@/lib/http/respond';
import { withApi } from '@/lib/http/with-api';
import { idParam } from '@/lib/schemas/common';
import { serializeSigningKey } from '@/lib/schemas/signing-key';
import { deleteSigningKey } from '@/lib/services/signing-keys/delete-signing-key';
import { getSigningKey } from '@/lib/services/signing-keys/get-signing-key';

export const dynamic = 'force-dynamic';

const params = z.object({ keyId: idParam('Signing Key') });

// GET /system/v1/signing-keys/{SIGNING_KEY_ID}
export const GET = withApi(async ({ params }) => dataResponse(serializeSigningKey(await getSigningKey({ keyId: params.keyId }))), { params });

// DELETE /system/v1/signing-keys/{SIGNING_KEY_ID} – tokens signed with it stop working
export const DELETE = withApi(
  async ({ params }) => {
    await deleteSigningKey({ keyId: params.keyId });
    return noContentResponse();
  },
  { params },
);
