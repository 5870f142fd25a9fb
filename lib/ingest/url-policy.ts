import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Returns true if opening a connection to `address` (an IP literal) is allowed. */
export type AddressPolicy = (address: string) => boolean;

/** Resolves a host name to every address it currently maps to. */
export type HostLookup = (hostname: string) => Promise<ReadonlyArray<{ address: string; family?: number }>>;

export type UrlSyntaxResult = { ok: true; url: URL } | { ok: false; reason: string };

export const PRIVATE_ADDRESS_REASON = 'input URL points to a private or loopback address, which is not allowed';
export const LOCAL_HOSTNAME_REASON = 'input URL points to a local or internal host name, which is not allowed';

const DNS_TIMEOUT_MS = 3_000;

// 2000::/3 is the only IPv6 block IANA has allocated for global unicast. Requiring it
// (on top of ipaddr.js saying "unicast") also rejects the deprecated IPv4-compatible
// form ::a.b.c.d and other unassigned space that ipaddr.js leaves as "unicast".
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

// Names that by convention (RFC 6761, RFC 6762, RFC 8375, cloud provider metadata
// zones) only ever resolve inside the local machine or network.
const LOCAL_NAME_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'];

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * True only for globally routable unicast addresses. Anything ipaddr.js puts in a
 * special-purpose range (loopback, private, link-local, CGNAT, multicast, reserved,
 * NAT64, 6to4, Teredo, ...) is refused: the embedded-IPv4 transition forms can reach
 * internal IPv4 hosts through a gateway, and legitimate media hosts don't use them.
 */
export function isPublicAddress(address: string): boolean {
  const candidate = stripBrackets(address.trim());
  if (!ipaddr.isValid(candidate)) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(candidate);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // The kernel delivers ::ffff:a.b.c.d to the IPv4 host, so judge the IPv4 address.
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
    return v6.range() === 'unicast' && v6.match(IPV6_GLOBAL_UNICAST);
  }
  return (parsed as ipaddr.IPv4).range() === 'unicast';
}

export const allowAllAddresses: AddressPolicy = () => true;

function isLocalHostname(hostname: string): boolean {
  // "localhost." is the same name as "localhost" in DNS, so compare without the root dot.
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  if (name === 'localhost' || name === '') return true;
  return LOCAL_NAME_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/**
 * Cheap, DNS-free validation of a user-supplied input URL. Odd IPv4 spellings
 * (`2130706433`, `0x7f.1`, `127.1`) are canonicalised by the WHATWG parser before we
 * classify them, so they can't slip past as "host names".
 */
export function checkInputUrlSyntax(raw: string, options: { allowPrivate: boolean }): UrlSyntaxResult {
  if (typeof raw !== 'string' || raw.trim() === '') {
    return { ok: false, reason: 'input URL must not be empty' };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'input URL is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'input URL must use http or https' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'input URL must not contain a user name or password' };
  }
  if (url.hostname === '') {
    return { ok: false, reason: 'input URL must include a host name' };
  }
  if (!options.allowPrivate) {
    const host = stripBrackets(url.hostname);
    if (isIP(host) !== 0) {
      if (!isPublicAddress(host)) return { ok: false, reason: PRIVATE_ADDRESS_REASON };
    } else if (isLocalHostname(host)) {
      return { ok: false, reason: LOCAL_HOSTNAME_REASON };
    }
  }
  return { ok: true, url };
}

export const defaultHostLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Create-time DNS check so obviously internal targets get a 400 straight away. It is
 * advisory only: DNS can change before the download, so the downloader re-checks the
 * address each socket actually connects to.
 */
export async function resolvesToPublicAddresses(
  hostname: string,
  options: { lookup?: HostLookup; timeoutMs?: number } = {},
): Promise<'public' | 'private' | 'unresolvable'> {
  const host = stripBrackets(hostname);
  if (isIP(host) !== 0) return isPublicAddress(host) ? 'public' : 'private';

  const lookup = options.lookup ?? defaultHostLookup;
  const timeoutMs = options.timeoutMs ?? DNS_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    const addresses = await Promise.race([lookup(host).catch(() => null), timeout]);
    if (!addresses || addresses.length === 0) return 'unresolvable';
    return addresses.every((entry) => isPublicAddress(entry.address)) ? 'public' : 'private';
  } finally {
    clearTimeout(timer);
  }
}
