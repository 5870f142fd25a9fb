import { spawn } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { terminateThenKill } from './child-process-set';

const exitOf = (child: ReturnType<typeof spawn>) => new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));

describe('terminateThenKill', () => {
  test('a child that ends on SIGTERM ends by it', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const exited = exitOf(child);
    terminateThenKill(child, 5_000);
    expect(await exited).toBe('SIGTERM');
  });

  test('a child that ignores SIGTERM is killed with its group after the grace period', async () => {
    const child = spawn('bash', ['-c', 'trap "" TERM; sleep 30 & wait'], { detached: true, stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = exitOf(child);
    const startedAt = Date.now();
    terminateThenKill(child, 300);
    expect(await exited).toBe('SIGKILL');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(250);
  });
});
