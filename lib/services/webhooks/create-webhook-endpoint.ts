import { getDb } from '../../db/client';
import { checkWebhookUrl } from '../../schemas/webhook-endpoint';
import { generateId } from '../../utils/ids';

export class InvalidWebhookUrlError extends Error {}

// Registers a URL that will receive every event from now on, with its own signing secret (kept in
// clear: each delivery is an HMAC computed with it).
export const createWebhookEndpoint = async ({
  url,
}: {
  url: string;
}): Promise<{ id: string; url: string; secret: string; createdAt: Date }> => {
  const checked = checkWebhookUrl(url);
  if (!checked.ok) throw new InvalidWebhookUrlError(checked.reason);
  const endpoint = await getDb().webhookEndpoint.create({
    data: { id: generateId(), url: checked.url, signingSecret: generateId(40) },
  });
  return { id: endpoint.id, url: endpoint.url, secret: endpoint.signingSecret, createdAt: endpoint.createdAt };
};
