import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, portBlockStart } from './free-port.mjs';

const listenOn = (port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('freePort', () => {
  it('gives each Playwright worker slot its own block below the ephemeral range', () => {
    expect(portBlockStart('0')).toBe(20_000);
    expect(portBlockStart('1')).toBe(21_000);
    expect(portBlockStart('13')).toBe(21_000);
    expect(portBlockStart(undefined, 5)).toBe(25_000);
    for (let slot = 0; slot < 24; slot += 1) expect(portBlockStart(String(slot)) + 999).toBeLessThan(32_768);
  });

  it('returns ports that can be bound, skipping taken ones and not repeating itself', async () => {
    const first = await freePort();
    const blockStart = portBlockStart();
    const following = blockStart + ((first - blockStart + 1) % 1000);
    const held = await listenOn(following).catch(() => null);
    const next = await Promise.all([freePort(), freePort(), freePort()]);
    try {
      expect(new Set([first, ...next]).size).toBe(4);
      const heldPort = held ? (held.address() as net.AddressInfo).port : -1;
      expect(next).not.toContain(heldPort);
      for (const port of next) {
        const server = await listenOn(port);
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      held?.close();
    }
  });
});
