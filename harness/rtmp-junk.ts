import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { sleep } from './stats';

// A raw TCP client that speaks just enough RTMP to send junk to a server's RTMP port, for the
// tests (e2e/live/ingest-keys.spec.ts) and the live bench's hostile case: the server must close
// the connection and nothing else may notice.

const CLOSE_TIMEOUT_MS = 15_000;

export type JunkAnswer = { handshakeAnswered: boolean; closedAfterMs: number | null };

/**
 * A raw TCP client on the RTMP port: C0+C1, the server's S0+S1+S2 awaited, C2 answered (unless
 * `handshake` is false), then `junk`. Times how long after the junk the server closes the socket.
 */
export const sendRtmpJunk = async ({ port, junk, handshake }: { port: number; junk: Buffer; handshake: boolean }): Promise<JunkAnswer> => {
  const socket = net.connect(port, '127.0.0.1');
  let received = Buffer.alloc(0);
  let closedAtMs: number | null = null;
  socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
  socket.on('error', () => undefined);
  socket.on('close', () => (closedAtMs = Date.now()));
  // Also settles when the port refuses the connection (then the junk goes nowhere and closedAtMs is set).
  await new Promise<void>((resolve) => {
    socket.once('connect', () => resolve());
    socket.once('close', () => resolve());
  });
  let handshakeAnswered = false;
  if (handshake) {
    // Version 3, then C1: time and zero fields zeroed (the simple handshake), random bytes after.
    socket.write(Buffer.concat([Buffer.from([3]), randomBytes(1536).fill(0, 0, 8)]));
    const deadline = Date.now() + 5_000;
    while (received.length < 1 + 1536 * 2 && closedAtMs === null && Date.now() < deadline) await sleep(10);
    handshakeAnswered = received.length >= 1 + 1536 * 2;
    socket.write(received.subarray(1, 1 + 1536));
  }
  const sentAtMs = Date.now();
  socket.write(junk);
  const deadline = sentAtMs + CLOSE_TIMEOUT_MS;
  while (closedAtMs === null && Date.now() < deadline) await sleep(10);
  socket.destroy();
  // A fresh binding: TypeScript does not see the 'close' handler's assignment and would keep closedAtMs null.
  const closedAt: number | null = closedAtMs;
  return { handshakeAnswered, closedAfterMs: closedAt === null ? null : closedAt - sentAtMs };
};
