import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getLogger } from '../../log';
import { ApiError } from '../../errors/api-error';
import { sendPlaybackError } from './send-playback-reply';

// Live playback of a broadcast another node holds: the request is passed to that node as it came
// (path and query, so blocking reloads and signed proofs work unchanged) and its answer streamed
// back. A forwarded request is marked, and a node never forwards a marked one again: two nodes
// that each think the other holds a broadcast answer an error instead of passing it back and forth.
// Node's global agent keeps connections to the holder alive between a player's requests.

const FORWARDED_HEADER = 'x-keyframe-live-forwarded';
// A blocking playlist reload waits up to three target durations (6 s) at the holder.
const FORWARD_TIMEOUT_MS = 15_000;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'proxy-connection', 'upgrade']);

export const isForwardedLive = (request: IncomingMessage): boolean => request.headers[FORWARDED_HEADER] === '1';

export const forwardLive = (request: IncomingMessage, response: ServerResponse, nodeUrl: string): Promise<void> =>
  new Promise<void>((resolve) => {
    const target = new URL(request.url ?? '/', nodeUrl);
    const headers: Record<string, string> = { [FORWARDED_HEADER]: '1' };
    for (const name of ['user-agent', 'referer', 'origin', 'accept']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const upstream = http.request(target, { method: request.method === 'HEAD' ? 'HEAD' : 'GET', headers, timeout: FORWARD_TIMEOUT_MS }, (answer) => {
      const passed: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) passed[name] = value;
      response.writeHead(answer.statusCode ?? 502, passed);
      answer.pipe(response);
      answer.once('end', resolve);
      answer.once('error', () => {
        response.destroy();
        resolve();
      });
    });
    const fail = (reason: string) => {
      getLogger().warn({ node: nodeUrl, url: request.url, reason }, 'could not forward live playback to the node holding the broadcast');
      if (!response.headersSent) sendPlaybackError(response, new ApiError('service_unavailable', 'The node holding this live stream cannot be reached'));
      else response.destroy();
      resolve();
    };
    upstream.once('timeout', () => upstream.destroy(new Error('timed out')));
    upstream.once('error', (error) => fail(error.message));
    response.once('close', () => upstream.destroy());
    upstream.end();
  });
