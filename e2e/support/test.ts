import { test as base } from '@playwright/test';
import Mux from '@mux/mux-node';
import { ensureFixtures, type Fixtures } from './fixtures';
import { KeyframeServer, type AccessToken } from './keyframe-server';
import { MediaServer } from '../../harness/media-server';
import { SHARED_MEDIA_DIR } from './paths';

export { expect } from '@playwright/test';

type WorkerFixtures = {
  /** Generated media (always available). */
  fixtures: Fixtures;
  /** Static file server for the generated fixtures and, when present, ../shared/media. */
  media: MediaServer;
};

type TestFixtures = {
  /** Attaches the logs of every Keyframe server started by this worker when a test fails. */
  serverLogsOnFailure: void;
};

const startedServers = new Set<KeyframeServer>();

/** Starts a Keyframe server and remembers it so its logs are attached to failing tests. */
export const startKeyframe = async (...args: Parameters<typeof KeyframeServer.start>): Promise<KeyframeServer> => {
  const server = await KeyframeServer.start(...args);
  startedServers.add(server);
  return server;
};

/** Restarts on the same DATA_DIR (see KeyframeServer.restart), tracking the new process too. */
export const restartKeyframe = async (
  server: KeyframeServer,
  ...args: Parameters<KeyframeServer['restart']>
): Promise<KeyframeServer> => {
  const next = await server.restart(...args);
  startedServers.delete(server);
  startedServers.add(next);
  return next;
};

/** Disposes servers (stop + remove DATA_DIR); safe with undefined entries from a failed beforeAll. */
export const disposeKeyframe = async (...servers: Array<KeyframeServer | undefined>): Promise<void> => {
  await Promise.all(
    servers.map(async (server) => {
      if (!server) return;
      await server.dispose();
      startedServers.delete(server);
    }),
  );
};

export const muxClient = (server: KeyframeServer, token: AccessToken, options: { maxRetries?: number } = {}): Mux =>
  new Mux({
    tokenId: token.id,
    tokenSecret: token.secret,
    baseURL: server.baseUrl,
    maxRetries: options.maxRetries ?? 2,
    timeout: 30_000,
  });

export const test = base.extend<TestFixtures, WorkerFixtures>({
  fixtures: [
    async ({}, use) => {
      await use(await ensureFixtures());
    },
    { scope: 'worker' },
  ],
  media: [
    async ({ fixtures }, use) => {
      const media = await MediaServer.start({ roots: [fixtures.dir, SHARED_MEDIA_DIR] });
      await use(media);
      await media.close();
    },
    { scope: 'worker' },
  ],
  serverLogsOnFailure: [
    async ({}, use, testInfo) => {
      await use();
      if (testInfo.status === testInfo.expectedStatus) return;
      for (const server of startedServers) {
        await testInfo.attach(`${server.label}.log`, { body: server.logs() || '(no output)', contentType: 'text/plain' });
      }
    },
    { auto: true },
  ],
});
