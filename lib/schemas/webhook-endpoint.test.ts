import { describe, expect, test } from 'vitest';
import { checkWebhookUrl } from './webhook-endpoint';

describe('checkWebhookUrl', () => {
  test.each([
    ['https://example.com/webhooks/mux', 'https://example.com/webhooks/mux'],
    ['http://127.0.0.1:4000/hook?x=1', 'http://127.0.0.1:4000/hook?x=1'],
    ['  https://Example.COM  ', 'https://example.com/'],
    ['https://example.com/hook#fragment', 'https://example.com/hook'],
  ])('accepts %s', (raw, expected) => {
    expect(checkWebhookUrl(raw)).toEqual({ ok: true, url: expected });
  });

  test.each([
    ['', /required/],
    ['example.com/hook', /not a valid URL/],
    ['ftp://example.com/hook', /http:\/\/ or https:\/\//],
    ['javascript:alert(1)', /http:\/\/ or https:\/\//],
    ['file:///etc/passwd', /http:\/\/ or https:\/\//],
    ['https://user:pass@example.com/', /credentials/],
    [`https://example.com/${'a'.repeat(2100)}`, /longer than/],
  ])('refuses %s', (raw, reason) => {
    const checked = checkWebhookUrl(raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toMatch(reason);
  });
});
