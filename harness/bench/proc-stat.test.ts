import { describe, expect, test } from 'vitest';
import { childPidsOf, parseMachineTicks, parseProcessTicks, readMachineTicks, readProcessTicks, runningChildrenTicks } from './proc-stat';

// This process's children's ticks: reaped plus running.
const childrenTicks = (): number => readProcessTicks('self')!.reapedChildren + runningChildrenTicks(childPidsOf(process.pid));

describe('parseMachineTicks', () => {
  test('busy is every state but idle and iowait', () => {
    const stat = 'cpu  100 5 50 1000 20 3 2 7 0 0\ncpu0 50 2 25 500 10 1 1 3 0 0\nintr 1 2 3\n';
    expect(parseMachineTicks(stat)).toEqual({ busy: 100 + 5 + 50 + 3 + 2 + 7, total: 100 + 5 + 50 + 3 + 2 + 7 + 1000 + 20 });
  });

  test('no aggregate line: null', () => {
    expect(parseMachineTicks('cpu0 1 2 3 4\n')).toBeNull();
  });
});

describe('parseProcessTicks', () => {
  test('fields count from the last parenthesis, whatever the command name holds', () => {
    const line = '4242 (next-server (v1) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 321 45 67 8 20 0 11 0 100 1000 200';
    expect(parseProcessTicks(line)).toEqual({ own: 321 + 45, reapedChildren: 67 + 8 });
  });

  test('a truncated line: null', () => {
    expect(parseProcessTicks('1 (x) S 1 2 3')).toBeNull();
  });
});

describe('reading this machine', () => {
  test.runIf(process.platform === 'linux')('a child that runs is counted while it runs and after it was waited for', async () => {
    const { spawn } = await import('node:child_process');
    const before = childrenTicks();
    const machineBefore = readMachineTicks();
    expect(machineBefore).not.toBeNull();
    // A child busy for 0.3 s of CPU (not of wall time: on a loaded machine that would be less).
    const child = spawn(process.execPath, ['-e', 'while (process.cpuUsage().user < 300_000);']);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(childPidsOf(process.pid)).toContain(child.pid);
    const whileRunning = childrenTicks();
    expect(whileRunning).toBeGreaterThan(before!);
    await new Promise((resolve) => child.once('exit', resolve));
    const after = childrenTicks();
    expect(after).toBeGreaterThanOrEqual(whileRunning);
    expect(after - before).toBeGreaterThanOrEqual(20);
    expect(readMachineTicks()!.total).toBeGreaterThan(machineBefore!.total);
  });
});
