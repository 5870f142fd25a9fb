import pino, { type Logger } from 'pino';
import { getEnv } from './env';
import { processSingleton } from './utils/process-singleton';

// Logs go to stderr so that CLI commands can keep stdout for their (JSON) output.
export const getLogger = (): Logger =>
  processSingleton('logger', () => pino({ level: getEnv().logLevel, base: { app: 'keyframe' } }, pino.destination(2)));
