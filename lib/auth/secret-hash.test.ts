import { describe, expect, test } from 'vitest';
import { hashSecret, verifySecret } from './secret-hash';

describe('secret hashing', () => {
  test('verifies the right secret and rejects others', async () => {
    const stored = await hashSecret('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(stored).not.toContain('correct horse');
    await expect(verifySecret('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(verifySecret('correct horse battery stapler', stored)).resolves.toBe(false);
    await expect(verifySecret('', stored)).resolves.toBe(false);
  });

  test('two hashes of the same secret differ (salted)', async () => {
    expect(await hashSecret('x')).not.toBe(await hashSecret('x'));
  });

  test('malformed stored hashes never verify', async () => {
    await expect(verifySecret('x', 'plain')).resolves.toBe(false);
    await expect(verifySecret('x', 'scrypt$1$2')).resolves.toBe(false);
  });
});
