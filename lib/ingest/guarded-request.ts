import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy, HostLookup } from './url-policy';

// Outgoing GETs to user-supplied URLs, with the address policy enforced on the socket's own
// lookup. Shared by the input download and the range requests made while it runs.

// Marks an error raised by our own lookup hook so it survives being passed through
// net/http unchanged and can be reported as a policy refusal rather than a network fault.
export class ForbiddenAddressError extends Error {
  constructor(readonly address: string) {
    super(`connection to ${address} is not allowed`);
    this.name = 'ForbiddenAddressError';
  }
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * The check runs inside the socket's own lookup step, so the address vetted is exactly
 * the address connected to; a second DNS answer (rebinding) can't sneak in between.
 */
export function guardedLookup(resolve: HostLookup, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (entries) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses: LookupAddress[] = entries
          .map((entry) => ({ address: entry.address, family: entry.family ?? isIP(entry.address) }))
          .filter((entry) => entry.family !== 0 && (wanted === 0 || entry.family === wanted));
        if (addresses.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = 'ENOTFOUND';
          callback(err, '', 0);
          return;
        }
        // Refuse outright when any answer is disallowed: a name mixing public and
        // internal addresses is suspect, and it matches the create-time DNS check.
        const refused = addresses.find((entry) => !policy(entry.address));
        if (refused) {
          callback(new ForbiddenAddressError(refused.address), '', 0);
          return;
        }
        if (options.all) {
          callback(null, addresses);
        } else {
          const first = addresses[0]!;
          callback(null, first.address, first.family);
        }
      },
      (err: unknown) => {
        callback(err instanceof Error ? err : new Error(String(err)), '', 0);
      },
    );
  };
}

export function sendRequest(
  url: URL,
  options: { lookup: LookupFunction; policy: AddressPolicy; signal: AbortSignal; userAgent: string; headers?: Record<string, string> },
): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    // Node skips the lookup hook for IP literals, so they must be vetted here.
    const host = stripBrackets(url.hostname);
    if (isIP(host) !== 0 && !options.policy(host)) {
      reject(new ForbiddenAddressError(host));
      return;
    }
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      {
        method: 'GET',
        // A fresh socket per hop guarantees every connection goes through the lookup hook.
        agent: false,
        lookup: options.lookup,
        signal: options.signal,
        headers: {
          'User-Agent': options.userAgent,
          Accept: '*/*',
          // Compressed transfer would make byte limits meaningless and the stored file wrong.
          'Accept-Encoding': 'identity',
          ...options.headers,
        },
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

