// Which stream an SRT caller publishes to. Mux's form is the bare key
// (`srt://host:6001?streamid={stream_key}`); encoders configured for other servers often send
// SRT's access-control syntax instead (`#!::r={stream_key},m=publish`), which names the resource
// in `r` and the mode in `m`.

export type SrtStreamTarget = { ok: true; streamKey: string } | { ok: false; reason: string };

const ACCESS_CONTROL_PREFIX = '#!::';
const STREAM_KEY = /^[A-Za-z0-9_-]{1,128}$/;

// libsrt sends the stream id as the encoder was given it; ffmpeg does not percent-decode its
// `streamid` option, so `%23%21%3A%3A…` from a URL-encoding tool arrives encoded.
const decoded = (streamId: string): string => {
  if (!streamId.includes('%')) return streamId;
  try {
    return decodeURIComponent(streamId);
  } catch {
    return streamId;
  }
};

export const parseSrtStreamId = (sent: string | null): SrtStreamTarget => {
  if (sent === null || sent === '') return { ok: false, reason: 'no streamid: connect with srt://host:port?streamid={stream_key}' };
  const streamId = decoded(sent);
  let key = streamId;
  if (streamId.startsWith(ACCESS_CONTROL_PREFIX)) {
    const fields = new Map(
      streamId
        .slice(ACCESS_CONTROL_PREFIX.length)
        .split(',')
        .map((pair) => {
          const [name = '', ...value] = pair.split('=');
          return [name.trim(), value.join('=').trim()] as const;
        }),
    );
    const mode = fields.get('m');
    if (mode !== undefined && mode !== 'publish') return { ok: false, reason: `streamid asks for mode ${mode}: this server only takes publishers` };
    key = fields.get('r') ?? '';
  }
  if (!STREAM_KEY.test(key)) return { ok: false, reason: 'malformed stream key in streamid' };
  return { ok: true, streamKey: key };
};
