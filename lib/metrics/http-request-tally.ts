// HTTP requests per route class and status, and their durations, kept in plain numbers and written
// out in Prometheus' text format when scraped. Every request of the playback host passes through
// here, cached playlists included, whose whole answer costs ~30 µs of CPU: recording one request
// here costs ~30 ns, where prom-client's labelled counter plus histogram cost ~700 ns even with
// cached label children (2 % of that answer), so these two metrics do not go through prom-client.

/** What a request was for: a small fixed set, never the URL, so the label's cardinality is bounded. */
export const ROUTE_CLASSES = [
  'playback_playlist',
  'playback_segment',
  'playback_init',
  'playback_image',
  'playback_static',
  'playback_other',
  'api',
  'beacon',
  'dashboard',
  'metrics',
  'health',
  'other',
] as const;
export type RouteClass = (typeof ROUTE_CLASSES)[number];

// From a cached playlist (well under a millisecond) to a segment encoded while the viewer waits.
export const HTTP_DURATION_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const REQUESTS = 'keyframe_http_requests_total';
const DURATION = 'keyframe_http_request_duration_seconds';

type RouteTally = {
  countByStatus: Map<number, number>;
  // Observations per bucket (not cumulative); the last one is above the highest bound (+Inf).
  bucketCounts: Float64Array;
  sum: number;
  count: number;
};

/** Tallies in plain data, to move them between processes (a playback worker's to the app's). */
export type TallySnapshot = { route: RouteClass; statuses: [number, number][]; buckets: number[]; sum: number; count: number }[];

const formatNumber = (value: number): string => (Number.isFinite(value) ? String(value) : value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN');

export class HttpRequestTally {
  private readonly routes = new Map<RouteClass, RouteTally>();

  constructor(private readonly bounds: readonly number[] = HTTP_DURATION_BUCKETS) {}

  record(route: RouteClass, status: number, seconds: number): void {
    const tally = this.tallyOf(route);
    tally.countByStatus.set(status, (tally.countByStatus.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > (this.bounds[bucket] as number)) bucket++;
    tally.bucketCounts[bucket] = (tally.bucketCounts[bucket] as number) + 1;
    tally.sum += seconds;
    tally.count++;
  }

  private tallyOf(route: RouteClass): RouteTally {
    let tally = this.routes.get(route);
    if (!tally) {
      tally = { countByStatus: new Map(), bucketCounts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      this.routes.set(route, tally);
    }
    return tally;
  }

  /** Everything counted since the last drain, as plain data; the tally starts again from zero. */
  drain(): TallySnapshot {
    const snapshot = [...this.routes].map(([route, tally]) => ({
      route,
      statuses: [...tally.countByStatus],
      buckets: [...tally.bucketCounts],
      sum: tally.sum,
      count: tally.count,
    }));
    this.routes.clear();
    return snapshot;
  }

  /** Adds another tally's drained counts (with the same bucket bounds) to this one. */
  merge(snapshot: TallySnapshot): void {
    for (const part of snapshot) {
      if (!ROUTE_CLASSES.includes(part.route) || part.buckets.length !== this.bounds.length + 1) continue;
      const tally = this.tallyOf(part.route);
      for (const [status, count] of part.statuses) tally.countByStatus.set(status, (tally.countByStatus.get(status) ?? 0) + count);
      part.buckets.forEach((count, index) => {
        tally.bucketCounts[index] = (tally.bucketCounts[index] as number) + count;
      });
      tally.sum += part.sum;
      tally.count += part.count;
    }
  }

  /** Requests counted so far for a route class and status (for tests and the benchmark). */
  countOf(route: RouteClass, status: number): number {
    return this.routes.get(route)?.countByStatus.get(status) ?? 0;
  }

  /** Both metrics in the Prometheus text exposition format (version 0.0.4), ending in a newline. */
  render(): string {
    const lines = [
      `# HELP ${REQUESTS} HTTP requests answered, by route class and status code (499: the client went away before any answer).`,
      `# TYPE ${REQUESTS} counter`,
    ];
    const routes = ROUTE_CLASSES.filter((route) => this.routes.has(route));
    for (const route of routes) {
      const statuses = [...(this.routes.get(route)?.countByStatus ?? [])].sort(([a], [b]) => a - b);
      for (const [status, count] of statuses) lines.push(`${REQUESTS}{route="${route}",status="${status}"} ${count}`);
    }
    lines.push(`# HELP ${DURATION} Time from a request's arrival to its last byte (or the client going away), by route class.`);
    lines.push(`# TYPE ${DURATION} histogram`);
    for (const route of routes) {
      const tally = this.routes.get(route) as RouteTally;
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += tally.bucketCounts[index] as number;
        lines.push(`${DURATION}_bucket{route="${route}",le="${formatNumber(bound)}"} ${cumulative}`);
      });
      lines.push(`${DURATION}_bucket{route="${route}",le="+Inf"} ${tally.count}`);
      lines.push(`${DURATION}_sum{route="${route}"} ${formatNumber(tally.sum)}`);
      lines.push(`${DURATION}_count{route="${route}"} ${tally.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
