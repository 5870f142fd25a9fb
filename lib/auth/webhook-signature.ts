import { createHmac } from 'node:crypto';

// The `mux-signature` header of a webhook delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256>` over
// "<t>.<raw body>", keyed with the endpoint's signing secret (UTF-8). This is exactly what
// `mux.webhooks.unwrap()` / `verifySignature()` in @mux/mux-node check, so receivers written for
// Mux verify Keyframe deliveries unchanged. The timestamp is taken per attempt: receivers reject
// signatures older than 5 minutes, and retries can come hours after the event.

export const WEBHOOK_SIGNATURE_HEADER = 'mux-signature';

export const webhookSignatureHeader = ({
  body,
  secret,
  timestampSeconds,
}: {
  body: string;
  secret: string;
  timestampSeconds: number;
}): string => {
  const t = Math.floor(timestampSeconds);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
  return `t=${t},v1=${v1}`;
};
