import pino, { type Logger } from 'pino';
import { getEnv } from './env';
import { nodeRuntime } from './runtime/node-runtime';

declare module './runtime/node-runtime' {
  interface NodeRuntime {
    log: Logger;
  }
}

// Logs go to stderr so that CLI commands can keep stdout for their (JSON) output.
export const createLogger = (): Logger => pino({ level: getEnv().logLevel, base: { app: 'keyframe' } }, pino.destination(2));

export const getLogger = (): Logger => nodeRuntime().log;
