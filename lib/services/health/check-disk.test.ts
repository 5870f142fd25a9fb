import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { checkDisk } from './check-disk';

describe('checkDisk (statfs of the real temp directory)', () => {
  test('ok with room to spare, and says how much', async () => {
    const check = await checkDisk(os.tmpdir(), 1);
    expect(check.ok).toBe(true);
    expect(check.freeBytes).toBeGreaterThan(0);
  });

  test('not ok below the minimum, naming the setting', async () => {
    const check = await checkDisk(os.tmpdir(), 2 ** 60);
    expect(check).toMatchObject({ ok: false, reason: expect.stringMatching(/^DATA_DIR has \d+ MiB free, below HEALTH_MIN_FREE_DISK_MB/) });
  });

  test('not ok when DATA_DIR cannot be examined; not checked at 0', async () => {
    const missing = path.join(os.tmpdir(), 'keyframe-no-such-dir', 'data');
    expect(await checkDisk(missing, 1)).toMatchObject({ ok: false, reason: expect.stringContaining('ENOENT') });
    expect(await checkDisk(missing, 0)).toEqual({ ok: true });
  });
});
