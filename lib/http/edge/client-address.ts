import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

// Behind a reverse proxy or CDN every request's peer is the proxy, so whatever is keyed on the
// client (viewer streams, the beacon rate limit) would lump all viewers together. The operator
// names the proxies it trusts (TRUSTED_PROXIES); only from those is X-Forwarded-For believed,
// read from the right up to the first address that is not itself trusted — a client cannot
// claim another address by sending the header itself.

export type TrustedProxies = (address: string, hop: number) => boolean;

/** Compiles IPs, CIDR ranges and proxy-addr's names (loopback, linklocal, uniquelocal); throws on a bad entry. */
export const compileTrustedProxies = (entries: readonly string[]): TrustedProxies | null =>
  entries.length === 0 ? null : proxyaddr.compile([...entries]);

/** The client's address: the peer's own, or the one a trusted proxy says it forwarded for. */
export const requestClientAddress = (request: IncomingMessage, trusted: TrustedProxies | null): string | undefined => {
  const peer = request.socket.remoteAddress;
  if (!trusted || peer === undefined) return peer;
  return proxyaddr(request, trusted);
};
