import { ChildProcessSet } from '../../media/child-process-set';
import { nodeRuntime } from '../../runtime/node-runtime';

// The node's one set of live media children (lib/media/child-process-set.ts): every service that
// spawns ffmpeg, ffprobe or a recognizer hands it to lib/media, and the server's shutdown kills
// what is in it.

declare module '../../runtime/node-runtime' {
  interface NodeRuntime {
    childProcesses: ChildProcessSet;
  }
}

export const createChildProcesses = (): ChildProcessSet => new ChildProcessSet();

export const childProcesses = (): ChildProcessSet => nodeRuntime().childProcesses;
