// The JSON body of a webhook delivery, shaped like Mux's (mux-api.md §5.1): the event, the resource
// as it was when the event happened (`data`, with an integer `created_at`), and on retries the
// earlier attempts. Pure: the caller supplies the stored rows and the numeric endpoint id.

export const WEBHOOK_ENVIRONMENT = { id: 'default', name: 'Keyframe' } as const;

export type WebhookEventRecord = {
  id: string;
  type: string;
  objectType: string;
  objectId: string;
  dataJson: string;
  createdAt: Date;
};

export type WebhookAttemptRecord = {
  id: string;
  createdAt: Date;
  responseStatus: number | null;
  responseBody: string | null;
  responseHeadersJson: string | null;
};

export type WebhookAttemptJson = {
  id: string;
  address: string;
  created_at: string;
  max_attempts: number;
  response_body: string | null;
  response_headers: Record<string, string>;
  response_status_code: number | null;
  webhook_id: number;
};

/** "2022-04-08T16:47:21.123000Z": ISO 8601 with microseconds, as in Mux's envelopes. */
export const webhookTimestamp = (date: Date): string => date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

const parseHeaders = (json: string | null): Record<string, string> => {
  if (!json) return {};
  const parsed = JSON.parse(json) as unknown;
  return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
};

export const serializeWebhookAttempt = (
  attempt: WebhookAttemptRecord,
  { address, maxAttempts, webhookId }: { address: string; maxAttempts: number; webhookId: number },
): WebhookAttemptJson => ({
  id: attempt.id,
  address,
  created_at: webhookTimestamp(attempt.createdAt),
  max_attempts: maxAttempts,
  response_body: attempt.responseBody,
  response_headers: parseHeaders(attempt.responseHeadersJson),
  // null when no response came back at all (connection refused, timeout).
  response_status_code: attempt.responseStatus,
  webhook_id: webhookId,
});

export const buildWebhookEnvelope = ({
  event,
  previousAttempts,
}: {
  event: WebhookEventRecord;
  previousAttempts: WebhookAttemptJson[];
}) => ({
  type: event.type,
  id: event.id,
  created_at: webhookTimestamp(event.createdAt),
  object: { type: event.objectType, id: event.objectId },
  environment: { ...WEBHOOK_ENVIRONMENT },
  data: JSON.parse(event.dataJson) as Record<string, unknown>,
  attempts: previousAttempts,
  // Deprecated in Mux's envelope and always null there.
  accessor: null,
  accessor_source: null,
  request_id: null,
});

export type WebhookEnvelope = ReturnType<typeof buildWebhookEnvelope>;
