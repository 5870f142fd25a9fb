import http from 'node:http';
import { serveMetrics } from '../http/metrics/serve-metrics';
import { serverState } from '../runtime/server-state';
import { checkHealth } from '../services/health/check-health';
import { listen } from '../utils/listen';

// A worker node serves no pages and no API, but orchestration (a load balancer, Kubernetes, systemd
// watchdogs) still needs to ask whether it is alive: it answers GET /api/health exactly as the
// Next.js route does, /metrics (its jobs, ingest steps, webhook deliveries) as app nodes do, and
// 404 to anything else.
export const startHealthListener = async ({ port, host }: { port: number; host: string }): Promise<http.Server> => {
  const server = http.createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (pathname === '/metrics') return serveMetrics(request, response);
    if (pathname !== '/api/health' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: this node runs jobs only (KEYFRAME_ROLE=worker)\n');
      return;
    }
    checkHealth(serverState()).then(
      (report) => {
        const body = JSON.stringify({ status: report.ok ? 'ok' : 'unavailable', checks: report.checks });
        response.writeHead(report.ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      () => response.writeHead(503).end(),
    );
  });
  await listen(server, { port, host });
  return server;
};
