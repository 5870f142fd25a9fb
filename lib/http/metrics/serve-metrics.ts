import { clientAddressOf } from '../edge/from-playback-worker';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decideMetricsAccess, type MetricsAccess } from '../../auth/metrics-access';
import { getEnv } from '../../env';
import { getLogger } from '../../log';
import { renderMetrics } from '../../services/metrics/render-metrics';

// GET /metrics in Prometheus' text format. Answered by the Node server before Next.js routing,
// because without METRICS_TOKEN only loopback clients may read it, and only the socket knows the
// client's address (a forwarded-for header is whatever the client says it is).

const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

const REFUSALS: Record<Exclude<MetricsAccess, 'allowed'>, { status: number; headers: Record<string, string>; text: string }> = {
  unauthorized: {
    status: 401,
    headers: { 'www-authenticate': 'Bearer realm="keyframe-metrics"' },
    text: 'Send the METRICS_TOKEN as "Authorization: Bearer <token>".\n',
  },
  forbidden: {
    status: 403,
    headers: {},
    text: 'Without METRICS_TOKEN, /metrics answers only clients on this machine (loopback). Set METRICS_TOKEN to scrape it from elsewhere.\n',
  },
};

const refuse = (response: ServerResponse, access: Exclude<MetricsAccess, 'allowed'>): void => {
  const { status, headers, text } = REFUSALS[access];
  response.writeHead(status, { ...TEXT, ...headers }).end(text);
};

export const serveMetrics = (request: IncomingMessage, response: ServerResponse): void => {
  const access = decideMetricsAccess({
    configuredToken: getEnv().metricsToken,
    authorization: request.headers.authorization,
    remoteAddress: clientAddressOf(request),
    forwarded: ['forwarded', 'x-forwarded-for', 'x-real-ip'].some((name) => request.headers[name] !== undefined),
  });
  if (access !== 'allowed') return refuse(response, access);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { ...TEXT, allow: 'GET, HEAD' }).end(`${request.method} is not allowed here\n`);
    return;
  }
  renderMetrics().then(
    ({ contentType, body }) => {
      const bytes = Buffer.from(body);
      response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': bytes.length });
      response.end(request.method === 'HEAD' ? undefined : bytes);
    },
    (error: unknown) => {
      getLogger().error({ err: error }, 'rendering metrics failed');
      if (!response.headersSent) response.writeHead(500, TEXT).end('The metrics could not be rendered.\n');
    },
  );
};
