import { isIP } from 'node:net';

// Mux's ingest URL is rtmp://host/app/{stream_key}: the RTMP "app" is the literal `app` and the
// stream name is the key, optionally followed by a ?query that encoders may append.

export const RTMP_APP = 'app';

export type StreamTarget = { ok: true; streamKey: string } | { ok: false; reason: string };

export function parseStreamTarget(app: string, streamName: string): StreamTarget {
  if (app !== RTMP_APP) return { ok: false, reason: `unknown RTMP application: use rtmp://host/${RTMP_APP}/{stream_key}` };
  const streamKey = streamName.split('?')[0] ?? '';
  if (streamKey === '' || streamKey.includes('/')) return { ok: false, reason: 'missing or malformed stream key' };
  return { ok: true, streamKey };
}

/** The one-time token a loopback relay (SRT ingest) publishes with: `{stream_key}?relay={token}`. */
export function relayTokenOf(streamName: string): string | null {
  const query = streamName.split('?')[1];
  return query === undefined ? null : new URLSearchParams(query).get('relay');
}

/** The form a stream key takes in logs: enough to tell streams apart, never enough to publish. */
export function redactStreamKey(streamKey: string): string {
  return streamKey.length >= 16 ? `${streamKey.slice(0, 4)}…` : '…';
}

/** Removes the key from text that may have been built with it (an authorize() refusal reason). */
export function withoutStreamKey(text: string, streamKey: string): string {
  return streamKey === '' ? text : text.split(streamKey).join(redactStreamKey(streamKey));
}

/** A dual-stack listener reports IPv4 peers as ::ffff:a.b.c.d. */
export function normalizeAddress(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

export function isLoopbackAddress(address: string): boolean {
  const normalized = normalizeAddress(address);
  return normalized === '::1' || (isIP(normalized) === 4 && normalized.startsWith('127.'));
}

/**
 * The address the local packager reads from, for a listen host. Players must connect over
 * loopback (remote play is refused), so a listener bound to some other single address cannot serve them.
 */
export function localReadHost(listenHost: string | undefined): string {
  if (listenHost === undefined || listenHost === '' || listenHost === '0.0.0.0' || listenHost === '::') {
    return '127.0.0.1';
  }
  if (isLoopbackAddress(listenHost)) return isIP(normalizeAddress(listenHost)) === 6 ? '[::1]' : normalizeAddress(listenHost);
  throw new Error(`RTMP host ${listenHost} is neither a wildcard nor a loopback address: the local packager could not read from it`);
}
