import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { boundedLog, captureUntilExit } from './bounded-log';
import { spawnTracked } from './processes';

// What the private dependency servers (PostgreSQL, Redis) share: one child at a time, its recent
// output, whether it runs, and waiting until it answers.

const LOG_LINES = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export abstract class PrivateServer {
  protected child: ChildProcess | undefined;
  protected exited: Promise<void> = Promise.resolve();
  private readonly output = boundedLog(LOG_LINES);

  protected constructor(protected readonly label: string) {}

  get pid() {
    return this.running ? this.child?.pid : undefined;
  }

  get running() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The server's recent output, for a failing test's message. */
  logs() {
    return this.output.text();
  }

  /** Spawns the server (refusing while one runs) and resolves once `answer` says it is ready. */
  protected async spawnAndWait(
    command: string,
    args: string[],
    options: SpawnOptions,
    ready: { question: string; timeoutMs: number; pollMs: number; answer: () => Promise<true | string> },
  ): Promise<void> {
    if (this.running) throw new Error(`${this.label} is already running`);
    const child = spawnTracked(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.exited = captureUntilExit(child, this.output);
    const deadline = Date.now() + ready.timeoutMs;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (this.child !== child || !this.running) throw new Error(`${this.label} exited during startup:\n${this.logs()}`);
      const answer = await ready.answer();
      if (answer === true) return;
      last = answer;
      await sleep(ready.pollMs);
    }
    throw new Error(`${this.label} did not answer ${ready.question} within ${ready.timeoutMs} ms (last: ${last}):\n${this.logs()}`);
  }
}
