import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from './listen';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('listen', () => {
  it('resolves once the server listens', async () => {
    const server = http.createServer();
    servers.push(server);
    await listen(server, { port: 0, host: '127.0.0.1' });
    expect((server.address() as AddressInfo).port).toBeGreaterThan(0);
  });

  it('rejects with the bind error when the port is taken', async () => {
    const holder = http.createServer();
    servers.push(holder);
    await listen(holder, { port: 0, host: '127.0.0.1' });
    const { port } = holder.address() as AddressInfo;
    await expect(listen(http.createServer(), { port, host: '127.0.0.1' })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
