import { instanceSecrets } from '../../auth/instance-secrets';
import { signUploadUrlToken } from '../../auth/upload-url-token';
import type { Db } from '../../db/client';
import type { Prisma } from '../../db/generated/client';
import { getEnv } from '../../env';
import { notFound } from '../../errors/api-error';
import { unixSeconds } from '../../schemas/common';
import { serializeUpload, type UploadRecord } from '../../schemas/upload';
import { recordWebhookEvent, type WebhookEventType } from '../webhooks/record-webhook-event';

type DbClient = Db | Prisma.TransactionClient;

export type StoredUpload = UploadRecord & { expiresAt: Date; totalBytes: bigint | null };

export const uploadUrlKey = (): Uint8Array => Buffer.from(instanceSecrets(getEnv().dataDir).uploadUrlKey, 'base64url');

// `{BASE_URL}/upload/{id}?token=…`; the same URL every time it is asked for.
export const uploadUrl = async (upload: StoredUpload): Promise<string> => {
  const token = await signUploadUrlToken({
    key: uploadUrlKey(),
    uploadId: upload.id,
    issuedAt: upload.createdAt,
    expiresAt: upload.expiresAt,
  });
  return `${getEnv().baseUrl}/upload/${upload.id}?token=${token}`;
};

export const findUploadOrThrow = async (db: DbClient, uploadId: string): Promise<StoredUpload> => {
  const upload = await db.upload.findUnique({ where: { id: uploadId } });
  if (!upload) throw notFound('Upload');
  return upload;
};

export const uploadJson = async (upload: StoredUpload) =>
  serializeUpload(upload, { url: upload.status === 'waiting' ? await uploadUrl(upload) : undefined });

// Webhook data is the Upload object plus its creation time (an integer, as in Mux's events).
export const recordUploadEvent = async (db: DbClient, type: WebhookEventType, upload: StoredUpload): Promise<void> => {
  await recordWebhookEvent(db, {
    type,
    object: { type: 'upload', id: upload.id },
    data: { ...(await uploadJson(upload)), created_at: unixSeconds(upload.createdAt) },
  });
};
