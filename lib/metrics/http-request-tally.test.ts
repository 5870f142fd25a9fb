import { describe, expect, test } from 'vitest';
import { HttpRequestTally } from './http-request-tally';

describe('HttpRequestTally', () => {
  test('renders counts by status and cumulative duration buckets in the Prometheus text format', () => {
    const tally = new HttpRequestTally([0.01, 0.1, 1]);
    tally.record('playback_playlist', 200, 0.0004);
    tally.record('playback_playlist', 200, 0.01); // on a bound: counted in that bucket (le = less or equal)
    tally.record('playback_playlist', 304, 0.05);
    tally.record('playback_playlist', 200, 7);
    tally.record('api', 404, 0.2);

    expect(tally.countOf('playback_playlist', 200)).toBe(3);
    expect(tally.countOf('playback_playlist', 500)).toBe(0);
    expect(tally.countOf('dashboard', 200)).toBe(0);
    const lines = tally.render().split('\n');
    expect(lines).toEqual([
      '# HELP keyframe_http_requests_total HTTP requests answered, by route class and status code (499: the client went away before any answer).',
      '# TYPE keyframe_http_requests_total counter',
      'keyframe_http_requests_total{route="playback_playlist",status="200"} 3',
      'keyframe_http_requests_total{route="playback_playlist",status="304"} 1',
      'keyframe_http_requests_total{route="api",status="404"} 1',
      "# HELP keyframe_http_request_duration_seconds Time from a request's arrival to its last byte (or the client going away), by route class.",
      '# TYPE keyframe_http_request_duration_seconds histogram',
      'keyframe_http_request_duration_seconds_bucket{route="playback_playlist",le="0.01"} 2',
      'keyframe_http_request_duration_seconds_bucket{route="playback_playlist",le="0.1"} 3',
      'keyframe_http_request_duration_seconds_bucket{route="playback_playlist",le="1"} 3',
      'keyframe_http_request_duration_seconds_bucket{route="playback_playlist",le="+Inf"} 4',
      'keyframe_http_request_duration_seconds_sum{route="playback_playlist"} 7.0604',
      'keyframe_http_request_duration_seconds_count{route="playback_playlist"} 4',
      'keyframe_http_request_duration_seconds_bucket{route="api",le="0.01"} 0',
      'keyframe_http_request_duration_seconds_bucket{route="api",le="0.1"} 0',
      'keyframe_http_request_duration_seconds_bucket{route="api",le="1"} 1',
      'keyframe_http_request_duration_seconds_bucket{route="api",le="+Inf"} 1',
      'keyframe_http_request_duration_seconds_sum{route="api"} 0.2',
      'keyframe_http_request_duration_seconds_count{route="api"} 1',
      '',
    ]);
  });

  test('with nothing recorded, only the HELP and TYPE lines', () => {
    expect(new HttpRequestTally().render().split('\n').filter((line) => line && !line.startsWith('#'))).toEqual([]);
  });

  test('a drained tally merged into another renders as if counted there, and starts again from zero', () => {
    const worker = new HttpRequestTally([0.01, 0.1, 1]);
    worker.record('playback_playlist', 200, 0.0004);
    worker.record('playback_playlist', 304, 0.2);
    const app = new HttpRequestTally([0.01, 0.1, 1]);
    app.record('playback_playlist', 200, 0.05);
    const direct = new HttpRequestTally([0.01, 0.1, 1]);
    for (const [status, seconds] of [[200, 0.0004], [304, 0.2], [200, 0.05]] as const) direct.record('playback_playlist', status, seconds);
    app.merge(worker.drain());
    expect(app.render()).toBe(direct.render());
    expect(worker.drain()).toEqual([]);
  });
});
