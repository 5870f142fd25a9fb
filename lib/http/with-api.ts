import { z } from 'zod';
import { parseBasicCredentials } from '../auth/basic-credentials';
import { verifyAccessToken, type AuthenticatedToken } from '../auth/verify-access-token';
import { ApiError, isApiError, loggedUnexpectedApiError } from './api-error';
import { parseWith, readJsonBody } from './parse-request';
import { errorResponse } from './respond';
import { zodIssueMessages } from './zod-messages';

// The one wrapper every API route handler goes through: HTTP Basic auth with an access token,
// zod validation of params/query/body, and mapping of every thrown error to Mux's error shape.

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

type HandlerArgs<P, Q, B> = { request: Request; token: AuthenticatedToken; params: P; query: Q; body: B };

type ApiOptions<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> = {
  params?: P;
  query?: Q;
  body?: B;
  // Defaults to 'read' for GET and 'write' for everything else.
  access?: 'read' | 'write';
  // Runs after validation, before the handler: a rate limit throws its 429 here (see
  // polling-rate-limit.ts). Passed in rather than built in, so the routes without one load none of it.
  guard?: (args: HandlerArgs<z.output<P>, z.output<Q>, z.output<B>>) => Promise<void>;
};

export const unauthorized = () =>
  new ApiError('unauthorized', 'Unauthorized request', { 'www-authenticate': 'Basic realm="Keyframe API"' });

export const authenticate = async (request: Request): Promise<AuthenticatedToken> => {
  const credentials = parseBasicCredentials(request.headers.get('authorization'));
  if (!credentials) throw unauthorized();
  const token = await verifyAccessToken(credentials.id, credentials.secret);
  if (!token) throw unauthorized();
  return token;
};

// A live stream's key is its publisher's only credential, and it may be in a list query.
const loggableUrl = (url: string): string => {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('stream_key')) return url;
  parsed.searchParams.set('stream_key', '[redacted]');
  return parsed.toString();
};

export const toErrorResponse = (error: unknown, request: Request): Response => {
  if (isApiError(error)) return errorResponse(error);
  if (error instanceof z.ZodError) return errorResponse(new ApiError('invalid_parameters', zodIssueMessages(error)));
  if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'P2025') {
    return errorResponse(new ApiError('not_found', 'The requested resource was not found'));
  }
  return errorResponse(loggedUnexpectedApiError(error, { method: request.method, url: loggableUrl(request.url) }, 'API request failed'));
};

export const withApi =
  <P extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(
    handler: (args: HandlerArgs<z.output<P>, z.output<Q>, z.output<B>>) => Promise<Response>,
    options: ApiOptions<P, Q, B> = {},
  ) =>
  async (request: Request, context: RouteContext): Promise<Response> => {
    try {
      const token = await authenticate(request);
      const access = options.access ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write');
      if (access === 'write' && token.permission !== 'read_write') {
        throw new ApiError('forbidden', 'This access token is read-only');
      }
      const params = parseWith(options.params, await context.params, 'path');
      const query = parseWith(options.query, Object.fromEntries(new URL(request.url).searchParams), 'query');
      const body = parseWith(options.body, options.body ? await readJsonBody(request) : undefined, 'body');
      const args = { request, token, params, query, body };
      await options.guard?.(args);
      return await handler(args);
    } catch (error) {
      return toErrorResponse(error, request);
    }
  };
