// Minimal RFC 8216 playlist parsing and HTTP helpers for the playback specs. Deliberately strict:
// the parser keeps every line so tests can assert on the exact tags a server sends.

export type AttributeList = Record<string, string>;

export type HttpResult = { url: string; status: number; headers: Headers; body: Buffer; text: string };

/** GET (or HEAD, OPTIONS …) with no retries and a generous timeout (cold segments are encoded on request). */
export const httpGet = async (
  url: string,
  { method = 'GET', headers = {}, timeoutMs = 120_000 }: { method?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpResult> => {
  const response = await fetch(url, { method, headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  const body = Buffer.from(await response.arrayBuffer());
  return { url, status: response.status, headers: response.headers, body, text: body.toString('utf8') };
};

/** Parses an attribute list (`KEY=value,KEY="quoted, value"`); quotes are removed from quoted strings. */
export const parseAttributes = (input: string): AttributeList => {
  const attributes: AttributeList = {};
  const pattern = /([A-Z0-9-]+)=("[^"]*"|[^,]*)(?:,|$)/gy;
  let match: RegExpExecArray | null;
  let consumed = 0;
  while ((match = pattern.exec(input)) !== null) {
    const [whole, key, raw] = match;
    if (!whole) break;
    consumed = pattern.lastIndex;
    attributes[key!] = raw!.startsWith('"') ? raw!.slice(1, -1) : raw!;
    if (pattern.lastIndex >= input.length) break;
  }
  if (consumed < input.length) throw new Error(`malformed attribute list at ${consumed}: ${input}`);
  return attributes;
};

export type Variant = {
  attributes: AttributeList;
  uri: string;
  url: string;
  bandwidth: number;
  averageBandwidth: number | undefined;
  resolution: { width: number; height: number } | undefined;
  codecs: string[];
  frameRate: number | undefined;
  audioGroup: string | undefined;
};

export type Rendition = { attributes: AttributeList; uri: string | undefined; url: string | undefined };

export type MultivariantPlaylist = {
  text: string;
  lines: string[];
  version: number | undefined;
  independentSegments: boolean;
  media: Rendition[];
  variants: Variant[];
};

export type Segment = { duration: number; title: string; uri: string; url: string };

export type MediaPlaylist = {
  text: string;
  lines: string[];
  version: number | undefined;
  targetDuration: number | undefined;
  playlistType: string | undefined;
  mediaSequence: number;
  map: { uri: string; url: string } | undefined;
  segments: Segment[];
  endList: boolean;
  /** Total of the EXTINF durations. */
  totalDuration: number;
};

const tagValue = (line: string, tag: string): string | undefined =>
  line.startsWith(`${tag}:`) ? line.slice(tag.length + 1) : undefined;

const linesOf = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);

export const parseMultivariant = (text: string, playlistUrl: string): MultivariantPlaylist => {
  const lines = linesOf(text);
  if (lines[0] !== '#EXTM3U') throw new Error(`not a playlist (first line ${JSON.stringify(lines[0])})`);
  const playlist: MultivariantPlaylist = { text, lines, version: undefined, independentSegments: false, media: [], variants: [] };
  for (let index = 1; index < lines.length; index += 1) {
    const line = lines[index]!;
    const version = tagValue(line, '#EXT-X-VERSION');
    if (version !== undefined) playlist.version = Number(version);
    if (line === '#EXT-X-INDEPENDENT-SEGMENTS') playlist.independentSegments = true;
    const media = tagValue(line, '#EXT-X-MEDIA');
    if (media !== undefined) {
      const attributes = parseAttributes(media);
      playlist.media.push({
        attributes,
        uri: attributes.URI,
        url: attributes.URI === undefined ? undefined : new URL(attributes.URI, playlistUrl).toString(),
      });
    }
    const streamInf = tagValue(line, '#EXT-X-STREAM-INF');
    if (streamInf !== undefined) {
      const attributes = parseAttributes(streamInf);
      const uri = lines[index + 1];
      if (!uri || uri.startsWith('#')) throw new Error(`EXT-X-STREAM-INF without a URI line: ${line}`);
      index += 1;
      const resolution = attributes.RESOLUTION?.match(/^(\d+)x(\d+)$/);
      playlist.variants.push({
        attributes,
        uri,
        url: new URL(uri, playlistUrl).toString(),
        bandwidth: Number(attributes.BANDWIDTH),
        averageBandwidth: attributes['AVERAGE-BANDWIDTH'] === undefined ? undefined : Number(attributes['AVERAGE-BANDWIDTH']),
        resolution: resolution ? { width: Number(resolution[1]), height: Number(resolution[2]) } : undefined,
        codecs: (attributes.CODECS ?? '').split(',').map((codec) => codec.trim()).filter(Boolean),
        frameRate: attributes['FRAME-RATE'] === undefined ? undefined : Number(attributes['FRAME-RATE']),
        audioGroup: attributes.AUDIO,
      });
    }
  }
  return playlist;
};

export const parseMediaPlaylist = (text: string, playlistUrl: string): MediaPlaylist => {
  const lines = linesOf(text);
  if (lines[0] !== '#EXTM3U') throw new Error(`not a playlist (first line ${JSON.stringify(lines[0])})`);
  const playlist: MediaPlaylist = {
    text,
    lines,
    version: undefined,
    targetDuration: undefined,
    playlistType: undefined,
    mediaSequence: 0,
    map: undefined,
    segments: [],
    endList: false,
    totalDuration: 0,
  };
  let pending: { duration: number; title: string } | undefined;
  for (const line of lines.slice(1)) {
    const version = tagValue(line, '#EXT-X-VERSION');
    if (version !== undefined) playlist.version = Number(version);
    const target = tagValue(line, '#EXT-X-TARGETDURATION');
    if (target !== undefined) playlist.targetDuration = Number(target);
    const type = tagValue(line, '#EXT-X-PLAYLIST-TYPE');
    if (type !== undefined) playlist.playlistType = type;
    const sequence = tagValue(line, '#EXT-X-MEDIA-SEQUENCE');
    if (sequence !== undefined) playlist.mediaSequence = Number(sequence);
    const map = tagValue(line, '#EXT-X-MAP');
    if (map !== undefined) {
      const uri = parseAttributes(map).URI;
      if (!uri) throw new Error(`EXT-X-MAP without URI: ${line}`);
      playlist.map = { uri, url: new URL(uri, playlistUrl).toString() };
    }
    if (line === '#EXT-X-ENDLIST') playlist.endList = true;
    const inf = tagValue(line, '#EXTINF');
    if (inf !== undefined) {
      const comma = inf.indexOf(',');
      const duration = Number(comma === -1 ? inf : inf.slice(0, comma));
      if (!Number.isFinite(duration)) throw new Error(`bad EXTINF: ${line}`);
      pending = { duration, title: comma === -1 ? '' : inf.slice(comma + 1) };
    }
    if (!line.startsWith('#')) {
      if (!pending) throw new Error(`segment URI without EXTINF: ${line}`);
      playlist.segments.push({ ...pending, uri: line, url: new URL(line, playlistUrl).toString() });
      playlist.totalDuration += pending.duration;
      pending = undefined;
    }
  }
  return playlist;
};

/** `max-age` of a Cache-Control header, or undefined. */
export const maxAge = (cacheControl: string | null): number | undefined => {
  const match = cacheControl?.match(/(?:^|,)\s*max-age=(\d+)/i);
  return match ? Number(match[1]) : undefined;
};

/** The rung name a variant URI points at (`<pid>/720p.m3u8` → `720p`, `<pid>/audio.m3u8` → `audio`). */
export const renditionName = (uri: string): string => {
  const match = uri.match(/([^/?#]+)\.m3u8(?:[?#].*)?$/);
  if (!match) throw new Error(`not a rendition playlist URI: ${uri}`);
  return match[1]!;
};
