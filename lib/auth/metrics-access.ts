import { createHash, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';

// Who may read /metrics. With METRICS_TOKEN set, whoever presents it as a Bearer token, from any
// address (loopback included: a token that is configured is always required). Without it, only
// clients on this machine, so a fresh install exposes nothing to the network; a request a proxy
// forwarded (it names the client it came from) is not one of them, although a reverse proxy on
// this machine connects from loopback.

export type MetricsAccess = 'allowed' | 'unauthorized' | 'forbidden';

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback (::ffff:127.x.x.x), as a socket reports them. */
export const isLoopbackAddress = (address: string | undefined): boolean => {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
};

const bearerTokenOf = (authorization: string | undefined): string | null => {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return match?.[1] ?? null;
};

// Digests have equal lengths whatever was sent, as timingSafeEqual requires, and comparing them
// tells nothing about how much of the token was right.
const sameSecret = (presented: string, expected: string): boolean =>
  timingSafeEqual(createHash('sha256').update(presented).digest(), createHash('sha256').update(expected).digest());

export const decideMetricsAccess = ({
  configuredToken,
  authorization,
  remoteAddress,
  forwarded = false,
}: {
  configuredToken: string | null;
  authorization: string | undefined;
  remoteAddress: string | undefined;
  /** The request carries Forwarded, X-Forwarded-For or X-Real-IP. */
  forwarded?: boolean;
}): MetricsAccess => {
  if (configuredToken === null) return isLoopbackAddress(remoteAddress) && !forwarded ? 'allowed' : 'forbidden';
  const presented = bearerTokenOf(authorization);
  return presented !== null && sameSecret(presented, configuredToken) ? 'allowed' : 'unauthorized';
};
