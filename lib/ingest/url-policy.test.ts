import { describe, expect, it } from 'vitest';
import {
  allowAllAddresses,
  checkInputUrlSyntax,
  isPublicAddress,
  LOCAL_HOSTNAME_REASON,
  PRIVATE_ADDRESS_REASON,
  resolvesToPublicAddresses,
} from './url-policy';

describe('isPublicAddress', () => {
  const publicAddresses = [
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255', // just outside 172.16/12
    '172.32.0.1',
    '100.63.255.255', // just outside CGNAT
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:93.184.216.34', // mapped form of a public IPv4
    '[2606:4700::1111]',
  ];
  it.each(publicAddresses)('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  const nonPublic: Array<[string, string]> = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback /8'],
    ['10.0.0.1', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12 upper edge'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'cloud metadata (link-local)'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT upper edge'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', '0.0.0.0/8'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved 240/4'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with zone'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local fd'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, hex'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex'],
    ['::10.0.0.1', 'IPv4-compatible private'],
    ['::ffff:0:7f00:1', 'SIIT / rfc6145 form'],
    ['64:ff9b::7f00:1', 'NAT64 embedding loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 embedding metadata'],
    ['2002:7f00:1::', '6to4 embedding loopback'],
    ['2002:a00:1::1', '6to4 embedding 10.0.0.1'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo (embeds 127.0.0.1 obfuscated)'],
    ['not-an-ip', 'garbage'],
    ['', 'empty'],
    ['example.com', 'host name'],
  ];
  it.each(nonPublic)('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('allowAllAddresses allows anything', () => {
    expect(allowAllAddresses('127.0.0.1')).toBe(true);
    expect(allowAllAddresses('::1')).toBe(true);
  });
});

describe('checkInputUrlSyntax', () => {
  const strict = { allowPrivate: false };
  const lax = { allowPrivate: true };

  it.each([
    'https://example.com/video.mp4',
    'http://example.com:8080/a/b?c=d#e',
    'http://93.184.216.34/file.mov',
    'http://[2606:4700::1111]/file.mov',
    'HTTPS://EXAMPLE.COM/x',
    'https://cdn.localhost.example.com/x.mp4', // "localhost" label in the middle is fine
  ])('accepts %s', (raw) => {
    const result = checkInputUrlSyntax(raw, strict);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.url).toBeInstanceOf(URL);
  });

  it.each<[string, string]>([
    ['ftp://example.com/file.mp4', 'input URL must use http or https'],
    ['file:///etc/passwd', 'input URL must use http or https'],
    ['javascript:alert(1)', 'input URL must use http or https'],
    ['data:video/mp4;base64,AAAA', 'input URL must use http or https'],
    ['gopher://example.com/', 'input URL must use http or https'],
    ['not a url', 'input URL is not a valid URL'],
    ['/relative/path.mp4', 'input URL is not a valid URL'],
    ['http://', 'input URL is not a valid URL'],
    ['', 'input URL must not be empty'],
    ['https://user:pass@example.com/video.mp4', 'input URL must not contain a user name or password'],
    ['https://user@example.com/video.mp4', 'input URL must not contain a user name or password'],
  ])('rejects %s regardless of allowPrivate', (raw, reason) => {
    expect(checkInputUrlSyntax(raw, strict)).toEqual({ ok: false, reason });
    expect(checkInputUrlSyntax(raw, lax)).toEqual({ ok: false, reason });
  });

  it.each([
    'http://127.0.0.1/',
    'http://127.0.0.1:3000/api',
    'http://10.1.2.3/x',
    'http://192.168.0.10/x',
    'http://172.20.0.1/x',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.100.100.200/', // CGNAT range, used by some clouds for metadata
    'http://0.0.0.0/',
    'http://0/', // normalises to 0.0.0.0
    'http://2130706433/', // integer form of 127.0.0.1
    'http://0x7f.1/', // hex + short form
    'http://0x7f000001/',
    'http://0177.0.0.1/', // octal
    'http://127.1/',
    'http://127.0.0.1./', // trailing dot
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://[::]/',
    'http://[64:ff9b::7f00:1]/',
  ])('rejects non-public literal %s unless private is allowed', (raw) => {
    expect(checkInputUrlSyntax(raw, strict)).toEqual({ ok: false, reason: PRIVATE_ADDRESS_REASON });
    expect(checkInputUrlSyntax(raw, lax).ok).toBe(true);
  });

  it.each([
    'http://localhost/',
    'http://LOCALHOST:8080/',
    'http://localhost./',
    'http://localhost../',
    'http://foo.localhost/',
    'http://a.b.localhost./',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://printer.local/',
    'http://router.home.arpa/',
    'http://localhost.localdomain/',
  ])('rejects local host name %s unless private is allowed', (raw) => {
    expect(checkInputUrlSyntax(raw, strict)).toEqual({ ok: false, reason: LOCAL_HOSTNAME_REASON });
    expect(checkInputUrlSyntax(raw, lax).ok).toBe(true);
  });

  it('returns the normalised URL', () => {
    const result = checkInputUrlSyntax('http://0x7f.1:8080/a', lax);
    expect(result.ok && result.url.hostname).toBe('127.0.0.1');
  });
});

describe('resolvesToPublicAddresses', () => {
  const fake = (answers: Record<string, string[]>) => async (hostname: string) => {
    const list = answers[hostname];
    if (!list) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const lookup = fake({
    'public.test': ['93.184.216.34', '2606:4700::1111'],
    'private.test': ['10.0.0.5'],
    'mixed.test': ['93.184.216.34', '127.0.0.1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'empty.test': [],
  });

  it('classifies resolved names', async () => {
    await expect(resolvesToPublicAddresses('public.test', { lookup })).resolves.toBe('public');
    await expect(resolvesToPublicAddresses('private.test', { lookup })).resolves.toBe('private');
    await expect(resolvesToPublicAddresses('mixed.test', { lookup })).resolves.toBe('private');
    await expect(resolvesToPublicAddresses('mapped.test', { lookup })).resolves.toBe('private');
    await expect(resolvesToPublicAddresses('missing.test', { lookup })).resolves.toBe('unresolvable');
    await expect(resolvesToPublicAddresses('empty.test', { lookup })).resolves.toBe('unresolvable');
  });

  it('classifies IP literals without a lookup', async () => {
    const never = async () => {
      throw new Error('should not be called');
    };
    await expect(resolvesToPublicAddresses('127.0.0.1', { lookup: never })).resolves.toBe('private');
    await expect(resolvesToPublicAddresses('[::1]', { lookup: never })).resolves.toBe('private');
    await expect(resolvesToPublicAddresses('93.184.216.34', { lookup: never })).resolves.toBe('public');
  });

  it('gives up on slow resolvers', async () => {
    const hang = () => new Promise<never>(() => undefined);
    const started = Date.now();
    await expect(resolvesToPublicAddresses('slow.test', { lookup: hang, timeoutMs: 200 })).resolves.toBe('unresolvable');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('uses the system resolver by default', async () => {
    await expect(resolvesToPublicAddresses('localhost')).resolves.toBe('private');
  });
});
