import type { IncomingMessage } from 'node:http';
import { getEnv } from '../../env';
import { compileTrustedProxies, requestClientAddress, type TrustedProxies } from './client-address';
import { CLIENT_ADDRESS_HEADER, EDGE_HEADER_PREFIX, TAKES_FILES_HEADER } from './edge-protocol';

// The app's side of the playback workers: what a request forwarded by one of them carries. Read
// only for requests that came in on the app's private socket (see lib/server/main.ts), never from
// the public port, so a client cannot claim another address.

type Forwarded = { clientAddress: string | undefined; takesFiles: boolean };

const forwarded = new WeakMap<IncomingMessage, Forwarded>();

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** Takes the private headers off a request from a playback worker and remembers what they said. */
export const acceptWorkerRequest = (request: IncomingMessage): void => {
  forwarded.set(request, {
    clientAddress: single(request.headers[CLIENT_ADDRESS_HEADER]),
    takesFiles: request.headers[TAKES_FILES_HEADER] === '1',
  });
  for (const name of Object.keys(request.headers)) {
    if (name.startsWith(EDGE_HEADER_PREFIX)) delete request.headers[name];
  }
};

let trustedProxies: TrustedProxies | null | undefined;

/** The address of the client that sent the request, through a playback worker (which resolved it) or not. */
export const clientAddressOf = (request: IncomingMessage): string | undefined => {
  const fromWorker = forwarded.get(request);
  if (fromWorker) return fromWorker.clientAddress;
  trustedProxies ??= compileTrustedProxies(getEnv().trustedProxies);
  return requestClientAddress(request, trustedProxies);
};

/** Whether the playback worker that forwarded this request sends stored files itself. */
export const workerTakesFiles = (request: IncomingMessage): boolean => forwarded.get(request)?.takesFiles ?? false;

/** Whether the request came through a playback worker. */
export const isFromPlaybackWorker = (request: IncomingMessage): boolean => forwarded.has(request);
