// What an operator may configure as a webhook endpoint. Endpoints are set up by whoever runs the
// server (CLI, later the dashboard), so private and loopback addresses are allowed on purpose:
// receivers next to Keyframe on the same host or network are the common case.

const MAX_URL_LENGTH = 2048;

export type WebhookUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export const checkWebhookUrl = (raw: string): WebhookUrlCheck => {
  const text = raw.trim();
  if (text === '') return { ok: false, reason: 'a webhook URL is required' };
  if (text.length > MAX_URL_LENGTH) return { ok: false, reason: `the webhook URL is longer than ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `"${text}" is not a valid URL (expected e.g. https://example.com/webhooks/mux)` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `the webhook URL must start with http:// or https:// (got ${url.protocol}//)` };
  }
  if (url.hostname === '') return { ok: false, reason: `the webhook URL "${text}" has no host` };
  if (url.username || url.password) {
    return { ok: false, reason: 'the webhook URL must not contain credentials; deliveries are signed with the endpoint secret instead' };
  }
  url.hash = '';
  return { ok: true, url: url.toString() };
};
