import pino, { type Logger } from 'pino';
import { nodeRuntime } from './runtime/node-runtime';

declare module './runtime/node-runtime' {
  interface NodeRuntime {
    log: Logger;
  }
}

// Logs go to stderr so that CLI commands can keep stdout for their (JSON) output.
export const createLogger = (level: string): Logger => pino({ level, base: { app: 'keyframe' } }, pino.destination(2));

export const getLogger = (): Logger => nodeRuntime().log;
