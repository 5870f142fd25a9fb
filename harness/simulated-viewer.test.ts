import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseTimedMediaPlaylist, runSimulatedViewer } from './simulated-viewer';

// A fake origin: two video rungs of eight 0.5 s segments and an audio rendition of two 2 s
// segments. Some answers are slow or fail once, to see the viewer stall, switch and retry.

const SEGMENTS = 8;
const mediaPlaylist = (rendition: string, count: number, duration: number) =>
  [
    '#EXTM3U',
    '#EXT-X-VERSION:7',
    `#EXT-X-TARGETDURATION:${Math.ceil(duration)}`,
    `#EXT-X-MAP:URI="${rendition}/init.mp4"`,
    ...Array.from({ length: count }, (_, index) => [`#EXTINF:${duration.toFixed(6)},`, `${rendition}/${index}.m4s`]).flat(),
    '#EXT-X-ENDLIST',
  ].join('\n');

const MULTIVARIANT = [
  '#EXTM3U',
  '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Default",DEFAULT=YES,URI="pb/audio.m3u8"',
  '#EXT-X-STREAM-INF:BANDWIDTH=1800000,RESOLUTION=960x540,AUDIO="audio"',
  'pb/540p.m3u8',
  '#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=640x360,AUDIO="audio"',
  'pb/360p.m3u8',
].join('\n');

let server: http.Server;
let origin: string;
const requests: string[] = [];
// path → milliseconds to wait before answering
const delays = new Map<string, number>();
// paths that answer 503 the first time
const failOnce = new Set<string>();
// paths that answer 429 (Keyframe steering the viewer to a lower rung)
const refuse = new Set<string>();

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push(path);
    const answer = () => {
      if (failOnce.delete(path)) return response.writeHead(503).end('busy');
      if (refuse.has(path)) return response.writeHead(429, { 'retry-after': '10' }).end('{"error":{"type":"too_many_requests","messages":["steered"]}}');
      if (path === '/pb.m3u8') return response.writeHead(200).end(MULTIVARIANT);
      if (path === '/pb/audio.m3u8') return response.writeHead(200).end(mediaPlaylist('audio', 2, 2));
      const rung = /^\/pb\/(360p|540p)\.m3u8$/.exec(path)?.[1];
      if (rung) return response.writeHead(200).end(mediaPlaylist(rung, SEGMENTS, 0.5));
      if (/^\/pb\/(360p|540p|audio)\/(init\.mp4|\d+\.m4s)$/.test(path)) return response.writeHead(200).end(Buffer.alloc(1000, 1));
      return response.writeHead(404).end();
    };
    setTimeout(answer, delays.get(path) ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const pacing = { startupBufferSeconds: 1, paceAheadSeconds: 1, maxAheadSeconds: 30 };

describe('runSimulatedViewer', () => {
  test('fetches like a player and, with a fast origin, plays to the end without a stall', async () => {
    requests.length = 0;
    const report = await runSimulatedViewer({ multivariantUrl: `${origin}/pb.m3u8`, wallSeconds: 20, pacing });
    expect(report.errors).toEqual([]);
    expect(report.firstListed).toBe('540p');
    expect(report.ladder).toEqual(['360p', '540p']);
    expect(report.stalls).toBe(0);
    expect(report.reachedEnd).toBe(true);
    expect(report.fetchedEverything).toBe(true);
    expect(report.durationSeconds).toBe(4);
    expect(report.segmentsByRung).toEqual({ '540p': SEGMENTS });
    expect(report.startupMs).not.toBeNull();
    // Player order: the multivariant, both playlists, both init segments, then video with audio.
    expect(requests[0]).toBe('/pb.m3u8');
    expect(requests.slice(1, 5).sort()).toEqual(['/pb/540p.m3u8', '/pb/540p/init.mp4', '/pb/audio.m3u8', '/pb/audio/init.mp4'].sort());
    expect(requests.filter((path) => path.startsWith('/pb/audio/') && path.endsWith('.m4s'))).toEqual(['/pb/audio/0.m4s', '/pb/audio/1.m4s']);
    expect(requests.filter((path) => path.startsWith('/pb/540p/') && path.endsWith('.m4s'))).toEqual(
      Array.from({ length: SEGMENTS }, (_, index) => `/pb/540p/${index}.m4s`),
    );
    // Real-time pace after the start: the last segment is fetched about 3 s (8 × 0.5 s − 1 s) after the first.
    const segmentTimes = report.fetches.filter((fetch) => fetch.kind === 'video').map((fetch) => fetch.atMs);
    expect((segmentTimes.at(-1) ?? 0) - (segmentTimes[0] ?? 0)).toBeGreaterThan(2_000);
  });

  test('a slow segment stalls playback and drops a rung; a fast one climbs back', async () => {
    delays.set('/pb/540p/4.m4s', 1_600);
    try {
      const report = await runSimulatedViewer({ multivariantUrl: `${origin}/pb.m3u8`, wallSeconds: 20, pacing });
      expect(report.errors).toEqual([]);
      expect(report.stalls).toBe(1);
      expect(report.stalledSeconds).toBeGreaterThan(0.3);
      expect(report.stalledSeconds).toBeLessThan(1.5);
      expect(report.switches.map(({ from, to }) => `${from}→${to}`)).toEqual(['540p→360p', '360p→540p']);
      expect(report.segmentsByRung).toEqual({ '540p': SEGMENTS - 1, '360p': 1 });
      expect(report.reachedEnd).toBe(true);
      expect(report.fetches.filter((fetch) => fetch.kind === 'init').map((fetch) => fetch.rendition).sort()).toEqual(['360p', '540p', 'audio']);
    } finally {
      delays.clear();
    }
  });

  test('a failed request is counted as an error and retried', async () => {
    failOnce.add('/pb/540p/2.m4s');
    const report = await runSimulatedViewer({ multivariantUrl: `${origin}/pb.m3u8`, wallSeconds: 20, pacing });
    expect(report.errors.map((fetch) => [fetch.url.replace(origin, ''), fetch.status])).toEqual([['/pb/540p/2.m4s', 503]]);
    expect(report.fetchedEverything).toBe(true);
    expect(report.reachedEnd).toBe(true);
  });

  test('a segment refused with a 429 is fetched from the next lower rung at once, not retried, and is no error', async () => {
    refuse.add('/pb/540p/2.m4s');
    try {
      const report = await runSimulatedViewer({ multivariantUrl: `${origin}/pb.m3u8`, wallSeconds: 20, pacing });
      const segmentTwo = report.fetches.filter((fetch) => fetch.kind === 'video' && fetch.index === 2).map((fetch) => [fetch.rendition, fetch.status]);
      expect(segmentTwo).toEqual([['540p', 429], ['360p', 200]]);
      expect(report.switches.filter((move) => move.refused)).toMatchObject([{ from: '540p', to: '360p' }]);
      expect(report.errors).toEqual([]);
      expect(report.reachedEnd).toBe(true);
    } finally {
      refuse.clear();
    }
  });

  test('stops at the wall-clock budget and reports how far it got', async () => {
    const report = await runSimulatedViewer({ multivariantUrl: `${origin}/pb.m3u8`, wallSeconds: 1, pacing });
    expect(report.fetchedEverything).toBe(false);
    expect(report.reachedEnd).toBe(false);
    expect(report.reachedSeconds).toBeGreaterThan(0);
    expect(report.reachedSeconds).toBeLessThan(4);
  });
});

describe('parseTimedMediaPlaylist', () => {
  test('reads the init segment and each segment with its start and duration', () => {
    const parsed = parseTimedMediaPlaylist(mediaPlaylist('540p', 3, 2), 'http://h/pb/540p.m3u8');
    expect(parsed.initUrl).toBe('http://h/pb/540p/init.mp4');
    expect(parsed.segments).toEqual([
      { startSeconds: 0, durationSeconds: 2, url: 'http://h/pb/540p/0.m4s' },
      { startSeconds: 2, durationSeconds: 2, url: 'http://h/pb/540p/1.m4s' },
      { startSeconds: 4, durationSeconds: 2, url: 'http://h/pb/540p/2.m4s' },
    ]);
  });
});
