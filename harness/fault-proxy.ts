import net from 'node:net';

// A TCP proxy in front of a dependency (object storage, here) whose behaviour a test switches at
// run time: `pass` forwards both ways; `stall` accepts and forwards nothing either way (a hung
// endpoint; connections made then stay hung); `unavailable` answers every new connection with an
// HTTP 503 and an S3 error body and resets the open ones (throttling, an outage); `reset` resets
// every connection once its request arrives (an endpoint restarting: ECONNRESET to the client).

export type FaultMode = 'pass' | 'stall' | 'unavailable' | 'reset';

export type FaultProxy = {
  url: string;
  port: number;
  setMode: (mode: FaultMode) => void;
  close: () => Promise<void>;
};

const S3_UNAVAILABLE =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ServiceUnavailable</Code><Message>Please reduce your request rate.</Message></Error>';

const unavailableResponse = () =>
  `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/xml\r\ncontent-length: ${Buffer.byteLength(S3_UNAVAILABLE)}\r\nconnection: close\r\n\r\n${S3_UNAVAILABLE}`;

export const startFaultProxy = async ({ target }: { target: URL }): Promise<FaultProxy> => {
  let mode: FaultMode = 'pass';
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => undefined);
    if (mode === 'stall') return;
    if (mode === 'reset') {
      client.once('data', () => client.resetAndDestroy());
      return;
    }
    if (mode === 'unavailable') {
      // After the request arrives, as a server would answer it.
      client.once('data', () => client.end(unavailableResponse()));
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    open.add(upstream);
    upstream.on('close', () => open.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    setMode: (next) => {
      mode = next;
      // Connections kept alive from before would carry on as they were: each change applies to
      // every connection (and a stall ends for all of them).
      for (const socket of open) socket.destroy();
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
