import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { compileTrustedProxies, requestClientAddress } from './client-address';

const requestFrom = (peer: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

describe('requestClientAddress', () => {
  it('is the peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(compileTrustedProxies([])).toBeNull();
    expect(requestClientAddress(requestFrom('203.0.113.9', '198.51.100.1'), null)).toBe('203.0.113.9');
  });

  it('believes X-Forwarded-For only from a trusted proxy', () => {
    const trusted = compileTrustedProxies(['10.0.0.0/8']);
    expect(requestClientAddress(requestFrom('10.1.2.3', '198.51.100.1'), trusted)).toBe('198.51.100.1');
    expect(requestClientAddress(requestFrom('203.0.113.9', '198.51.100.1'), trusted)).toBe('203.0.113.9');
    expect(requestClientAddress(requestFrom('10.1.2.3'), trusted)).toBe('10.1.2.3');
  });

  it('walks a chain of trusted proxies from the right and stops at the first untrusted address', () => {
    const trusted = compileTrustedProxies(['loopback', '10.0.0.0/8']);
    // The left-most entry is whatever the client sent; it is not believed past an untrusted hop.
    expect(requestClientAddress(requestFrom('127.0.0.1', '1.1.1.1, 198.51.100.7, 10.0.0.5'), trusted)).toBe('198.51.100.7');
    expect(requestClientAddress(requestFrom('::ffff:127.0.0.1', '198.51.100.8'), trusted)).toBe('198.51.100.8');
  });

  it('refuses an entry that is not an address, a range or a known name', () => {
    expect(() => compileTrustedProxies(['not-an-ip'])).toThrow();
    expect(() => compileTrustedProxies(['10.0.0.0/99'])).toThrow();
  });
});
