import Mux from '@mux/mux-node';
import { describe, expect, test } from 'vitest';
import { WEBHOOK_SIGNATURE_HEADER, webhookSignatureHeader } from './webhook-signature';

// The receiving side is the real SDK: whatever Keyframe signs must pass `mux.webhooks.unwrap`.
const mux = new Mux({ tokenId: 'x', tokenSecret: 'y' });
const secret = 'whsec-test-4f1c2b9e0d7a6c5b';
const now = () => Math.floor(Date.now() / 1000);

const body = JSON.stringify({
  type: 'video.asset.ready',
  id: '3a5e4f1e-2a6b-4c1d-9f0e-8b7a6c5d4e3f',
  data: { id: 'asset', status: 'ready', passthrough: 'ünïcødé ✓ "quoted"' },
  attempts: [],
});

describe('webhookSignatureHeader', () => {
  test('has the t=…,v1=<64 hex> form', () => {
    expect(webhookSignatureHeader({ body, secret, timestampSeconds: 1_700_000_000.9 })).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
  });

  test('is accepted by @mux/mux-node webhooks.unwrap (including non-ASCII bodies)', async () => {
    const headers = { [WEBHOOK_SIGNATURE_HEADER]: webhookSignatureHeader({ body, secret, timestampSeconds: now() }) };
    await expect(mux.webhooks.unwrap(body, headers, secret)).resolves.toMatchObject({ type: 'video.asset.ready' });
  });

  test('is rejected by unwrap for another secret, a changed body or an old timestamp', async () => {
    const headers = { [WEBHOOK_SIGNATURE_HEADER]: webhookSignatureHeader({ body, secret, timestampSeconds: now() }) };
    await expect(mux.webhooks.unwrap(body, headers, `${secret}x`)).rejects.toThrow(/signature/i);
    await expect(mux.webhooks.unwrap(body.replace('ready', 'errored'), headers, secret)).rejects.toThrow(/signature/i);
    const stale = { [WEBHOOK_SIGNATURE_HEADER]: webhookSignatureHeader({ body, secret, timestampSeconds: now() - 301 }) };
    await expect(mux.webhooks.unwrap(body, stale, secret)).rejects.toThrow(/too old/);
  });
});
