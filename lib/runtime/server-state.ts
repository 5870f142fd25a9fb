import { nodeRuntime } from './node-runtime';

// What the server entry knows about startup and shutdown: it sets these, and the health check's
// callers (the Next.js route, the worker's health listener) pass them to it.
export type ServerState = { migrationsApplied: boolean; shuttingDown: boolean };

declare module './node-runtime' {
  interface NodeRuntime {
    serverState: ServerState;
  }
}

export const createServerState = (): ServerState => ({ migrationsApplied: false, shuttingDown: false });

export const serverState = (): ServerState => nodeRuntime().serverState;
