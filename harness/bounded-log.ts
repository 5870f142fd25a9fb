import type { ChildProcess } from 'node:child_process';

/** The last `maxLines` lines of a child's output, for error messages (a long-running server writes without end). */
export type BoundedLog = { append(chunk: string): void; text(): string };

export const boundedLog = (maxLines: number): BoundedLog => {
  const lines: string[] = [];
  let partial = '';
  return {
    append(chunk: string) {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts);
      lines.splice(0, Math.max(0, lines.length - maxLines));
    },
    text: () => [...lines, partial].join('\n'),
  };
};

/** Appends the child's stdout and stderr to `output`; resolves when the child has exited (or could not start). */
export const captureUntilExit = (child: ChildProcess, output: BoundedLog): Promise<void> => {
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => output.append(chunk));
  }
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      output.append(`spawn error: ${error.message}\n`);
      resolve();
    });
  });
};
