// The two HLS playlists a viewer reads, parsed as far as the simulated viewers and the benchmark
// need them: the variants of a multivariant playlist (in listed order) and a media playlist's init
// segment and segments, every URI resolved against the playlist's URL.

export type Variant = { rung: string; uri: string; resolution: string | null; bandwidth: number | null; codecs: string | null };

export const parseMultivariant = (text: string, playlistUrl: string): Variant[] => {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const variants: Variant[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (!line.startsWith('#EXT-X-STREAM-INF:')) continue;
    const attributes = line.slice('#EXT-X-STREAM-INF:'.length);
    const uriLine = lines.slice(index + 1).find((candidate) => candidate !== '' && !candidate.startsWith('#'));
    if (!uriLine) continue;
    const uri = new URL(uriLine, playlistUrl).toString();
    const rung = decodeURIComponent(new URL(uri).pathname.split('/').at(-1) ?? '').replace(/\.m3u8$/, '');
    const bandwidth = /(?:^|,)BANDWIDTH=(\d+)/.exec(attributes)?.[1];
    variants.push({
      rung,
      uri,
      resolution: /RESOLUTION=(\d+x\d+)/.exec(attributes)?.[1] ?? null,
      bandwidth: bandwidth === undefined ? null : Number(bandwidth),
      codecs: /CODECS="([^"]*)"/.exec(attributes)?.[1] ?? null,
    });
  }
  return variants;
};

export const parseMediaPlaylist = (text: string, playlistUrl: string): { initUrl: string | null; segmentUrls: string[] } => {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const map = lines.find((line) => line.startsWith('#EXT-X-MAP:'));
  const mapUri = map ? /URI="([^"]*)"/.exec(map)?.[1] : undefined;
  return {
    initUrl: mapUri ? new URL(mapUri, playlistUrl).toString() : null,
    segmentUrls: lines.filter((line) => line !== '' && !line.startsWith('#')).map((line) => new URL(line, playlistUrl).toString()),
  };
};
