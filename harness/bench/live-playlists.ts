import { round, sleep } from '../stats';

// Reading live HLS playlists the way the live benchmark needs: when a playlist became playable,
// and how fast each media playlist grows against the wall clock (a packager that cannot keep up
// lists less than a second of media per second).

export type PlaylistSegment = {
  msn: number;
  durationSeconds: number;
  programDateTimeMs: number | null;
  /** How many discontinuities came before it since the broadcast began (EXT-X-DISCONTINUITY-SEQUENCE counts those slid out). */
  discontinuity: number;
};

export const parseMediaPlaylist = (text: string): PlaylistSegment[] => {
  const sequence = /^#EXT-X-MEDIA-SEQUENCE:(\d+)/m.exec(text);
  let msn = sequence ? Number(sequence[1]) : 0;
  const discontinuitySequence = /^#EXT-X-DISCONTINUITY-SEQUENCE:(\d+)/m.exec(text);
  let discontinuity = discontinuitySequence ? Number(discontinuitySequence[1]) : 0;
  const segments: PlaylistSegment[] = [];
  let duration: number | null = null;
  let programDateTimeMs: number | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#EXTINF:')) duration = Number.parseFloat(line.slice('#EXTINF:'.length));
    else if (line === '#EXT-X-DISCONTINUITY') discontinuity += 1;
    else if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) programDateTimeMs = Date.parse(line.slice('#EXT-X-PROGRAM-DATE-TIME:'.length));
    else if (line && !line.startsWith('#') && duration !== null) {
      segments.push({ msn, durationSeconds: duration, programDateTimeMs, discontinuity });
      msn += 1;
      duration = null;
      programDateTimeMs = null;
    }
  }
  return segments;
};

/** Absolute URLs of the variants of a multivariant playlist, in listed order. */
export const variantUrls = (multivariantUrl: string, text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((uri) => new URL(uri, multivariantUrl).toString());

/** RESOLUTION=WxH of every variant, in listed order. */
export const variantResolutions = (text: string): string[] => [...text.matchAll(/RESOLUTION=(\d+x\d+)/g)].map((match) => match[1] ?? '');

/** GET `url` as text; status 0 (and the error as text) when it cannot be reached. */
export const fetchText = async (url: string): Promise<{ status: number; text: string }> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    return { status: 0, text: String(error) };
  }
};

export type Playable = {
  /** Publisher spawn → the multivariant playlist answered 200. */
  multivariantMs: number;
  /** Publisher spawn → the first-listed media playlist listed at least one segment. */
  playableMs: number;
  multivariant: string;
  variantUrls: string[];
};

/** Polls every `pollMs` from the publisher's spawn until the stream is playable. */
export const waitForPlayable = async ({
  multivariantUrl,
  startedAtMs,
  timeoutMs,
  pollMs = 50,
}: {
  multivariantUrl: string;
  startedAtMs: number;
  timeoutMs: number;
  pollMs?: number;
}): Promise<Playable> => {
  const deadline = startedAtMs + timeoutMs;
  let last = 'no answer yet';
  let multivariantMs: number | null = null;
  let multivariant = '';
  let variants: string[] = [];
  while (Date.now() < deadline) {
    if (multivariantMs === null) {
      const answer = await fetchText(multivariantUrl);
      if (answer.status === 200) {
        multivariantMs = Date.now() - startedAtMs;
        multivariant = answer.text;
        variants = variantUrls(multivariantUrl, answer.text);
        continue;
      }
      last = `multivariant ${answer.status}`;
    } else {
      const first = variants[0];
      if (!first) throw new Error(`the multivariant playlist lists no variant: ${multivariant.slice(0, 300)}`);
      const answer = await fetchText(first);
      if (answer.status === 200 && parseMediaPlaylist(answer.text).length > 0) {
        return { multivariantMs, playableMs: Date.now() - startedAtMs, multivariant, variantUrls: variants };
      }
      last = `media playlist ${answer.status}, ${answer.status === 200 ? 'no segment yet' : answer.text.slice(0, 200)}`;
    }
    await sleep(pollMs);
  }
  throw new Error(`not playable within ${timeoutMs} ms of the publisher's start (last: ${last})`);
};

export type SeenSegment = PlaylistSegment & { seenAtMs: number; mediaEndSeconds: number };

export type PlaylistGrowth = {
  /** Sum of EXTINF of the segments first listed within the window, ÷ the window's wall seconds (the brief's measure). */
  newExtinfPerSecond: number | null;
  /**
   * Media seconds listed per wall-clock second: the least-squares slope of when each segment was
   * first seen against where its media ends, over the segments first seen in the window. The
   * same growth, with the polling interval's jitter averaged out instead of landing on both ends.
   */
  fittedRate: number | null;
  segments: number;
};

/**
 * Polls playlists (URLs, or anything `read` returns text for) every `pollMs` and remembers when each
 * segment was first listed.
 */
export class PlaylistWatcher {
  private readonly seen = new Map<string, Map<number, SeenSegment>>();
  private readonly mediaEnd = new Map<string, { msn: number; seconds: number }>();
  private running = true;
  private readonly loop: Promise<void>;
  errors = 0;

  constructor(
    private readonly sources: string[],
    private readonly read: (source: string) => Promise<string | null>,
    pollMs: number,
  ) {
    for (const source of sources) this.seen.set(source, new Map());
    this.loop = (async () => {
      while (this.running) {
        const started = Date.now();
        await Promise.all(this.sources.map((source) => this.poll(source)));
        await sleep(Math.max(0, pollMs - (Date.now() - started)));
      }
    })();
  }

  static http(urls: string[], pollMs: number): PlaylistWatcher {
    return new PlaylistWatcher(urls, async (url) => {
      const answer = await fetchText(url);
      return answer.status === 200 ? answer.text : null;
    }, pollMs);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async poll(source: string): Promise<void> {
    const text = await this.read(source).catch(() => null);
    const seenAtMs = Date.now();
    if (text === null) {
      this.errors += 1;
      return;
    }
    const known = this.seen.get(source);
    if (!known) return;
    for (const segment of parseMediaPlaylist(text)) {
      if (known.has(segment.msn)) continue;
      const end = this.mediaEnd.get(source);
      // Segments are numbered on; one that slid out unseen (never, at these poll rates) leaves a gap the sum skips.
      const seconds = (end && end.msn < segment.msn ? end.seconds : 0) + segment.durationSeconds;
      this.mediaEnd.set(source, { msn: segment.msn, seconds });
      known.set(segment.msn, { ...segment, seenAtMs, mediaEndSeconds: seconds });
    }
  }

  segmentsOf(source: string): SeenSegment[] {
    return [...(this.seen.get(source)?.values() ?? [])].sort((a, b) => a.msn - b.msn);
  }

  growth(source: string, fromMs: number, toMs: number): PlaylistGrowth {
    const all = this.segmentsOf(source);
    const inWindow = all.filter((segment) => segment.seenAtMs > fromMs && segment.seenAtMs <= toMs);
    const wallSeconds = (toMs - fromMs) / 1000;
    const newSeconds = inWindow.reduce((sum, segment) => sum + segment.durationSeconds, 0);
    return {
      newExtinfPerSecond: wallSeconds > 0 ? round(newSeconds / wallSeconds, 3) : null,
      fittedRate: fittedRate(inWindow),
      segments: inWindow.length,
    };
  }
}

const fittedRate = (segments: SeenSegment[]): number | null => {
  if (segments.length < 3) return null;
  const xs = segments.map((segment) => segment.mediaEndSeconds);
  const ys = segments.map((segment) => segment.seenAtMs / 1000);
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  xs.forEach((x, index) => {
    covariance += (x - meanX) * ((ys[index] ?? meanY) - meanY);
    variance += (x - meanX) ** 2;
  });
  // Wall seconds per media second; its inverse is the rate media is listed at.
  const slope = variance > 0 ? covariance / variance : 0;
  return slope > 0 ? round(1 / slope, 3) : null;
};
