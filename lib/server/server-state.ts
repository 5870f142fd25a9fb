import { processSingleton } from '../utils/process-singleton';

// What the server entry knows about startup, read by the health check (which runs inside the
// Next.js bundle).
export type ServerState = { migrationsApplied: boolean; shuttingDown: boolean };

export const serverState = (): ServerState =>
  processSingleton('server-state', () => ({ migrationsApplied: false, shuttingDown: false }));
