import { describe, expect, test } from 'vitest';
import { ChildProcessSet } from './child-process-set';
import { cpuSecondsFromReport, problemsInReport, withCpuReport } from './cpu-report';
import { runProcess } from './run-process';
import { FFMPEG } from './test-support/media-fixtures';

const children = new ChildProcessSet();

describe('withCpuReport', () => {
  test('replaces the log level and asks for the benchmark report', () => {
    expect(withCpuReport(['-hide_banner', '-v', 'error', '-i', 'in.mp4', 'pipe:1'])).toEqual([
      '-v', 'level+info', '-nostats', '-benchmark', '-hide_banner', '-i', 'in.mp4', 'pipe:1',
    ]);
  });

  test('a real encode reports its CPU time, and a failing one its error alone', async () => {
    const ok = await runProcess({
      command: FFMPEG,
      args: withCpuReport(['-hide_banner', '-nostdin', '-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30:duration=2', '-c:v', 'libx264', '-f', 'mp4', '-movflags', '+frag_keyframe+empty_moov', 'pipe:1']),
      onStdout: () => undefined,
      children,
    });
    expect(ok.exitCode).toBe(0);
    const cpu = cpuSecondsFromReport(ok.stderr);
    expect(cpu).toBeGreaterThan(0.01);
    expect(cpu).toBeLessThan(30);

    const failed = await runProcess({ command: FFMPEG, args: withCpuReport(['-nostdin', '-v', 'error', '-i', '/nonexistent/input.mp4', '-f', 'null', '-']), children });
    expect(failed.exitCode).not.toBe(0);
    expect(cpuSecondsFromReport(failed.stderr)).toBeNull();
    expect(problemsInReport(failed.stderr)).toContain('/nonexistent/input.mp4: No such file or directory');
  });
});
