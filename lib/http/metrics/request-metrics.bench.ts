import http from 'node:http';
import net from 'node:net';
import { Counter, Histogram, Registry } from 'prom-client';
import { bench, describe } from 'vitest';
import { HTTP_DURATION_BUCKETS } from '../../metrics/http-request-tally';
import { countHttpRequest } from './request-metrics';

// What counting a request adds to it, on the objects Node's HTTP server makes for each request:
// `npx vitest bench lib/http/request-metrics.bench.ts`. The last case is the prom-client way
// (labelled counter and histogram, label children cached), for comparison.

const socket = new net.Socket();
const newResponse = () => {
  const request = new http.IncomingMessage(socket);
  request.method = 'GET';
  request.url = '/abcdefghijklmnopqrstuvwxyz0123456789ABCD/540p.m3u8';
  return new http.ServerResponse(request);
};

const registry = new Registry();
const requests = new Counter({ name: 'bench_requests_total', help: 'h', labelNames: ['route', 'status'], registers: [registry] });
const durations = new Histogram({ name: 'bench_duration_seconds', help: 'h', labelNames: ['route'], buckets: [...HTTP_DURATION_BUCKETS], registers: [registry] });
const requestsChild = requests.labels('playback_playlist', '200');
const durationsChild = durations.labels('playback_playlist');

describe('per request', () => {
  bench('baseline: response made and closed, not counted', () => {
    newResponse().emit('close');
  });
  bench('countHttpRequest (plain-number tally)', () => {
    const response = newResponse();
    countHttpRequest(response, 'playback_playlist');
    response.emit('close');
  });
  bench('prom-client counter + histogram, cached label children', () => {
    const response = newResponse();
    const startedAt = performance.now();
    response.on('close', () => {
      requestsChild.inc();
      durationsChild.observe((performance.now() - startedAt) / 1000);
    });
    response.emit('close');
  });
});
