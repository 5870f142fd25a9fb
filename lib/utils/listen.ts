import type { Server } from 'node:net';

export type ListenTarget = { port: number; host?: string } | { path: string };

/**
 * Resolves once `server` listens. A bind error (port in use, no permission) rejects, so startup
 * fails with that reason and a non-zero exit instead of an uncaught exception in a process that
 * stays up without serving.
 */
export const listen = (server: Server, target: ListenTarget): Promise<void> =>
  new Promise((resolve, reject) => {
    const fail = (error: Error) => reject(error);
    server.once('error', fail);
    const listening = () => {
      server.off('error', fail);
      resolve();
    };
    if ('path' in target) server.listen(target.path, listening);
    else server.listen(target.port, target.host, listening);
  });
