import http from 'node:http';
import { beaconBody, simulatedView } from '../../lib/analytics/mux-embed-beacons';
import { startBenchServer } from './bench-server';
import { percentile, round, sleep } from '../stats';
import { findServerProcess, statusMB } from './upload-throughput';

// The beacon collector under load: mux-embed bodies, most of them valid views (viewstart, play,
// playing, heartbeats with the player's aggregates, viewend) and the rest malformed (not JSON, no
// view_id, too many events, wrong types), sent open-loop at a fixed rate from many loopback
// addresses (each its own client for the per-client rate limit) to a fresh server behind its
// playback worker, as production runs. Measured: the answers (every valid beacon must get 200,
// every malformed one 400), their latency, every view written, and the server's resident memory
// before, at its peak, once the writes caught up, and once the kept view states aged out.

export type CollectorOptions = { ratePerSecond: number; seconds: number; clients: number; malformedShare: number; beaconsPerView: number; idleWaitMs: number };

export const DEFAULT_COLLECTOR_OPTIONS: CollectorOptions = {
  ratePerSecond: 1_000,
  seconds: 30,
  clients: 200,
  malformedShare: 0.2,
  beaconsPerView: 10,
  // The collector drops view states not written for 2 min (lib/services/analytics/collector.ts).
  idleWaitMs: 135_000,
};

type Latency = { p50: number | null; p95: number | null; p99: number | null; max: number | null };

export type CollectorResult = {
  options: CollectorOptions;
  playbackWorkers: number;
  sent: { valid: number; malformed: number };
  achievedRatePerSecond: number;
  statuses: { valid: Record<string, number>; malformed: Record<string, number> };
  /** Valid beacons not answered 200 (the target is none). */
  validRefused: number;
  /** Malformed beacons not answered 400. */
  malformedNot400: number;
  latencyMs: { valid: Latency; malformed: Latency };
  /** Answers slower than 500 ms: how many, and when they were sent (seconds into the load). */
  slow: { count: number; firstSentAtSecond: number | null; lastSentAtSecond: number | null; perSecond: Record<string, number> };
  views: { sent: number; stored: number | null; secondsToAllStored: number | null };
  rssMB: { before: number | null; peak: number | null; afterWrites: number | null; afterIdle: number | null };
  anonMB: { before: number | null; afterWrites: number | null; afterIdle: number | null };
};

const rounded = (value: number | null) => (value === null ? null : round(value, 2));
const latencyOf = (values: number[]): Latency => ({
  p50: rounded(percentile(values, 50)),
  p95: rounded(percentile(values, 95)),
  p99: rounded(percentile(values, 99)),
  max: rounded(values.length ? values.reduce((max, value) => Math.max(max, value), 0) : null),
});

const SLOW_MS = 500;

const MALFORMED = [
  () => '{"metadata":{},"events":[{"e":"hb",',
  () => JSON.stringify({ events: [{ e: 'hb', xsqno: 1 }] }),
  () => JSON.stringify({ events: Array.from({ length: 301 }, (_, index) => ({ e: 'hb', xid: 'too-many', xsqno: index })) }),
  () => JSON.stringify({ metadata: { transmission_timestamp: 'soon' }, events: [{ e: 5, xid: [], xsqno: 'x' }] }),
];

/** One client's views, beacon after beacon. */
const clientViews = (client: number, beaconsPerView: number) => {
  let viewIndex = 0;
  let beacon = 0;
  let view = simulatedView({ viewId: `bench-${client}-0`, sourceUrl: 'http://localhost/BenchPlaybackId000000000001.m3u8', videoTitle: `Bench ${client % 10}` });
  let started = 0;
  return {
    get viewsStarted() {
      return started;
    },
    next(): string {
      if (beacon === 0) started += 1;
      beacon += 1;
      view.wait(1_000);
      let events;
      if (beacon === 1) events = [view.event('viewstart'), view.event('play'), view.event('playing', { view_time_to_first_frame: 300 + (client % 7) * 100 })];
      else if (beacon === beaconsPerView) events = [view.event('viewend', { view_watch_time: beacon * 1_000, view_playing_time_ms_cumulative: beacon * 900 })];
      else events = [view.event('hb', { view_watch_time: beacon * 1_000, view_playing_time_ms_cumulative: beacon * 900, player_playhead_time: beacon * 900 })];
      const body = beaconBody(events, view.now);
      if (beacon === beaconsPerView) {
        beacon = 0;
        viewIndex += 1;
        view = simulatedView({ viewId: `bench-${client}-${viewIndex}`, sourceUrl: 'http://localhost/BenchPlaybackId000000000001.m3u8', videoTitle: `Bench ${client % 10}` });
      }
      return body;
    },
  };
};

const post = (agent: http.Agent, url: URL, localAddress: string, body: string): Promise<number> =>
  new Promise((resolve) => {
    const request = http.request(
      { host: url.hostname, port: url.port, path: '/', method: 'POST', agent, localAddress, headers: { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', () => resolve(-1));
    request.end(body);
  });

const count = (record: Record<string, number>, key: number) => {
  record[String(key)] = (record[String(key)] ?? 0) + 1;
};

export const measureCollectorOnFreshServer = async ({
  log,
  options = DEFAULT_COLLECTOR_OPTIONS,
}: {
  log: (line: string) => void;
  options?: CollectorOptions;
}): Promise<{ result: CollectorResult; serverLogTail: string[] }> => {
  const playbackWorkers = 1;
  const server = await startBenchServer({ env: { PLAYBACK_WORKERS: String(playbackWorkers) } });
  try {
    const token = await server.createToken();
    const url = new URL(server.baseUrl);
    const serverPid = findServerProcess(server.pid ?? 0, Number(url.port)).pid;
    const rss = () => statusMB(serverPid, 'VmRSS');
    const anon = () => statusMB(serverPid, 'RssAnon');
    await sleep(5_000);
    const before = { rss: rss(), anon: anon() };
    log(`collector: server RSS ${before.rss} MB at rest; ${options.ratePerSecond} beacons/s for ${options.seconds} s from ${options.clients} clients`);

    let peak = before.rss ?? 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss() ?? 0);
    }, 250);

    const clients = Array.from({ length: options.clients }, (_, index) => ({
      address: `127.0.${1 + Math.floor(index / 250)}.${2 + (index % 250)}`,
      agent: new http.Agent({ keepAlive: true, maxSockets: 8 }),
      views: clientViews(index, options.beaconsPerView),
    }));
    const statuses = { valid: {} as Record<string, number>, malformed: {} as Record<string, number> };
    const latencies = { valid: [] as number[], malformed: [] as number[] };
    const sent = { valid: 0, malformed: 0 };
    const inFlight = new Set<Promise<void>>();
    const slowSentAt: number[] = [];
    const total = options.ratePerSecond * options.seconds;
    const startedAt = performance.now();
    let issued = 0;
    while (issued < total) {
      const due = Math.min(total, Math.floor(((performance.now() - startedAt) / 1000) * options.ratePerSecond));
      for (; issued < due; issued += 1) {
        const client = clients[issued % clients.length] as (typeof clients)[number];
        const malformed = (issued * 7919) % 1000 < options.malformedShare * 1000;
        const kind = malformed ? 'malformed' : 'valid';
        const body = malformed ? (MALFORMED[issued % MALFORMED.length] as () => string)() : client.views.next();
        sent[kind] += 1;
        const began = performance.now();
        const request = post(client.agent, url, client.address, body).then((status) => {
          const took = performance.now() - began;
          latencies[kind].push(took);
          if (took > SLOW_MS) slowSentAt.push((began - startedAt) / 1000);
          count(statuses[kind], status);
          inFlight.delete(request);
        });
        inFlight.add(request);
      }
      await sleep(2);
    }
    await Promise.all(inFlight);
    const loadSeconds = (performance.now() - startedAt) / 1000;
    const viewsSent = clients.reduce((sum, client) => sum + client.views.viewsStarted, 0);
    log(`collector: sent ${sent.valid} valid and ${sent.malformed} malformed beacons in ${round(loadSeconds, 1)} s; waiting for ${viewsSent} views to be written`);

    // Every view the load started must be stored (the collector writes every second).
    const auth = `Basic ${Buffer.from(`${token.id}:${token.secret}`).toString('base64')}`;
    const storedViews = async (): Promise<number | null> => {
      const response = await fetch(`${server.baseUrl}/data/v1/video-views?timeframe[]=1:hours&limit=1`, { headers: { authorization: auth } });
      return response.ok ? (((await response.json()) as { total_row_count: number }).total_row_count ?? null) : null;
    };
    const writesFrom = performance.now();
    let stored: number | null = null;
    let secondsToAllStored: number | null = null;
    while (performance.now() - writesFrom < 60_000) {
      stored = await storedViews();
      if (stored === viewsSent) {
        secondsToAllStored = round((performance.now() - writesFrom) / 1000, 1);
        break;
      }
      await sleep(500);
    }
    await sleep(10_000);
    clearInterval(sampler);
    const afterWrites = { rss: rss(), anon: anon() };
    log(`collector: ${stored}/${viewsSent} views stored; RSS peak ${peak} MB, ${afterWrites.rss} MB once written; waiting ${options.idleWaitMs / 1000} s for kept states to age out`);
    await sleep(options.idleWaitMs);
    const afterIdle = { rss: rss(), anon: anon() };
    for (const client of clients) client.agent.destroy();

    const validRefused = Object.entries(statuses.valid).reduce((sum, [status, value]) => sum + (status === '200' ? 0 : value), 0);
    const malformedNot400 = Object.entries(statuses.malformed).reduce((sum, [status, value]) => sum + (status === '400' ? 0 : value), 0);
    return {
      result: {
        options,
        playbackWorkers,
        sent,
        achievedRatePerSecond: round((sent.valid + sent.malformed) / loadSeconds, 1),
        statuses,
        validRefused,
        malformedNot400,
        latencyMs: { valid: latencyOf(latencies.valid), malformed: latencyOf(latencies.malformed) },
        slow: {
          count: slowSentAt.length,
          firstSentAtSecond: slowSentAt.length ? round(Math.min(...slowSentAt), 2) : null,
          lastSentAtSecond: slowSentAt.length ? round(Math.max(...slowSentAt), 2) : null,
          perSecond: slowSentAt.reduce<Record<string, number>>((bySecond, at) => {
            bySecond[String(Math.floor(at))] = (bySecond[String(Math.floor(at))] ?? 0) + 1;
            return bySecond;
          }, {}),
        },
        views: { sent: viewsSent, stored, secondsToAllStored },
        rssMB: { before: before.rss, peak, afterWrites: afterWrites.rss, afterIdle: afterIdle.rss },
        anonMB: { before: before.anon, afterWrites: afterWrites.anon, afterIdle: afterIdle.anon },
      },
      serverLogTail: server.logs().split('\n').slice(-40),
    };
  } finally {
    await server.dispose();
  }
};
