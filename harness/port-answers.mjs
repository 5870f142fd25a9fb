// Whether something accepts TCP connections at host:port within 2 s: how the optional e2e runs
// (PostgreSQL, the cluster) decide to skip on a machine without those services.
import net from 'node:net';

export const portAnswers = (host, port) =>
  new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2_000 });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
