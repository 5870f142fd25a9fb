import { freePort } from './free-port.mjs';

/**
 * Starts a server made for a free port, and again on another one (3 tries in all) when the port
 * was taken between choosing and binding it — which its log says as "Address already in use".
 */
export const launchOnFreePort = async <T extends { logs(): string }>({
  create,
  start,
  undo,
}: {
  create: (port: number) => T;
  start: (server: T) => Promise<void>;
  /** Stops and cleans up after a failed start. */
  undo: (server: T) => Promise<void>;
}): Promise<T> => {
  for (let attempt = 1; ; attempt += 1) {
    const server = create(await freePort());
    try {
      await start(server);
      return server;
    } catch (error) {
      await undo(server);
      if (!server.logs().includes('Address already in use') || attempt >= 3) throw error;
    }
  }
};
