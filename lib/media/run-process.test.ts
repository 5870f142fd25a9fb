import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runProcess } from './run-process';
import { autogroupsEnabled } from './test-support/scheduling';
import { ChildProcessSet } from './child-process-set';

const children = new ChildProcessSet();
const activeProcessCount = () => children.size;
const killAllProcesses = () => children.killAll();

/** A killed orphan may linger as a zombie until init reaps it; that counts as dead. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('runProcess', () => {
  it('captures output and a non-zero exit without throwing', async () => {
    const result = await runProcess({ command: 'sh', args: ['-c', 'echo out; echo err >&2; exit 3'], children });
    expect(result).toEqual({ exitCode: 3, signal: null, stdout: 'out\n', stderr: 'err\n', timedOut: false, aborted: false });
  });

  it('abort kills a sleeping child and its whole process group quickly', async () => {
    const controller = new AbortController();
    let shellPid = 0;
    const started = Date.now();
    // The shell forks sleep as a grandchild: killing only the shell would leave it running.
    const running = runProcess({
      command: 'sh',
      args: ['-c', 'sleep 30 & echo $!; wait'],
      signal: controller.signal,
      onSpawn: (pid) => {
        shellPid = pid;
      },
      children,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(activeProcessCount()).toBeGreaterThanOrEqual(1);
    controller.abort();
    const result = await running;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.signal).toBe('SIGKILL');
    expect(result.exitCode).toBeNull();
    const sleepPid = Number(result.stdout.trim());
    expect(sleepPid).toBeGreaterThan(0);
    expect(isAlive(shellPid)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isAlive(sleepPid)).toBe(false);
    expect(activeProcessCount()).toBe(0);
  });

  it('does not spawn when the signal is already aborted', async () => {
    const result = await runProcess({ command: 'sleep', args: ['30'], signal: AbortSignal.abort(), children });
    expect(result.aborted).toBe(true);
    expect(activeProcessCount()).toBe(0);
  });

  it('sets timedOut and kills the child when the timeout elapses', async () => {
    const started = Date.now();
    const result = await runProcess({ command: 'sleep', args: ['30'], timeoutMs: 300, children });
    expect(result.timedOut).toBe(true);
    expect(result.aborted).toBe(false);
    expect(result.signal).toBe('SIGKILL');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects with the binary name when it cannot be spawned', async () => {
    await expect(runProcess({ command: '/nonexistent/ffprobe-missing', args: ['-version'], children })).rejects.toThrow(
      /ffprobe-missing.*not found/,
    );
    expect(activeProcessCount()).toBe(0);
  });

  it('caps output: keeps the head of stdout and the tail of stderr', async () => {
    const script = 'i=0; while [ $i -lt 2000 ]; do echo "line $i"; echo "line $i" >&2; i=$((i+1)); done';
    const result = await runProcess({ command: 'sh', args: ['-c', script], maxOutputBytes: 100, children });
    expect(result.stdout).toHaveLength(100);
    expect(result.stdout.startsWith('line 0\nline 1\n')).toBe(true);
    expect(result.stderr).toHaveLength(100);
    expect(result.stderr.endsWith('line 1998\nline 1999\n')).toBe(true);
  });

  it('killAllProcesses ends every live child', async () => {
    const runs = [1, 2, 3].map(() => runProcess({ command: 'sleep', args: ['30'], children }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(activeProcessCount()).toBe(3);
    killAllProcesses();
    const results = await Promise.all(runs);
    expect(results.map((r) => r.signal)).toEqual(['SIGKILL', 'SIGKILL', 'SIGKILL']);
    expect(activeProcessCount()).toBe(0);
  });
});

describe('runProcess with extra output pipes', () => {
  const collect = () => {
    const chunks: Buffer[] = [];
    return { onOutput: (chunk: Buffer) => void chunks.push(chunk), bytes: () => Buffer.concat(chunks) };
  };

  it('hands each callback what the child writes on fd 3, 4, …, large outputs included', async () => {
    const [three, four] = [collect(), collect()];
    // 1 MiB on fd 3, far more than a pipe buffers: the child blocks unless it is read as it comes.
    const script = 'head -c 1048576 /dev/zero >&3; echo four >&4; echo out';
    const result = await runProcess({ command: 'sh', args: ['-c', script], extraOutputs: [three.onOutput, four.onOutput], children });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('out\n');
    expect(three.bytes().equals(Buffer.alloc(1024 * 1024))).toBe(true);
    expect(four.bytes().toString()).toBe('four\n');
  });

  it('resolves only once every pipe has ended, not when the child exits', async () => {
    const late = collect();
    // The shell exits at once; a process it leaves behind writes to fd 3 later, then closes it.
    const script = 'exec 1>&- 2>&-; (sleep 0.3; echo late >&3) & exit 0';
    const result = await runProcess({ command: 'sh', args: ['-c', script], extraOutputs: [late.onOutput], children });
    expect(result.exitCode).toBe(0);
    expect(late.bytes().toString()).toBe('late\n');
  });

  it('reach a background (niced) binary too', async () => {
    const three = collect();
    const result = await runProcess({
      command: 'sh',
      args: ['-c', 'printf three >&3'],
      background: true,
      extraOutputs: [three.onOutput],
      children,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(three.bytes().toString()).toBe('three');
  });

  it('abort still kills the child, with an extra pipe open', async () => {
    const controller = new AbortController();
    const running = runProcess({ command: 'sh', args: ['-c', 'echo started >&3; sleep 30'], signal: controller.signal, extraOutputs: [() => controller.abort()], children });
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(activeProcessCount()).toBe(0);
  });
});

describe('runProcess with background', () => {
  it('starts the binary at nice 19 in a nice-19 session: its first instruction already runs there', async () => {
    // The child reports its own priority before doing anything else, so a renice after spawn
    // would be seen as 0 here.
    const script = `const os = require('node:os'); const fs = require('node:fs');
      const group = fs.existsSync('/proc/self/autogroup') ? fs.readFileSync('/proc/self/autogroup', 'utf8') : '';
      console.log(JSON.stringify({ nice: os.getPriority(), group, argv0: process.argv0 }));`;
    const result = await runProcess({ command: process.execPath, args: ['-e', script], background: true, children });
    expect(result.exitCode).toBe(0);
    const seen = JSON.parse(result.stdout) as { nice: number; group: string; argv0: string };
    expect(seen.nice).toBe(19);
    if (autogroupsEnabled()) expect(seen.group).toMatch(/ nice 19$/m);
    expect(result.stderr).toBe('');
  });

  it('passes arguments through unchanged, spaces and quotes included', async () => {
    const args = ['a b', `it's "quoted"`, '$HOME', ''];
    const result = await runProcess({
      command: process.execPath,
      args: ['-e', 'console.log(JSON.stringify(process.argv.slice(1)))', ...args],
      background: true,
      children,
    });
    expect(JSON.parse(result.stdout)).toEqual(args);
  });

  it('a missing binary fails with its name in stderr, not a silent success', async () => {
    const result = await runProcess({ command: '/nonexistent/ffmpeg', args: [], background: true, children });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('/nonexistent/ffmpeg');
  });
});
