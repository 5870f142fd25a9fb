import { z } from 'zod';
import { auth } from '../auth/dashboard-auth';
import { ApiError } from './api-error';
import { toErrorResponse } from './with-api';
import { parseWith, readJsonBody } from './parse-request';

// The wrapper for the dashboard's own JSON routes (app/api/dashboard/**): a next-auth session
// instead of an access token, the same zod validation and the same {"error":{type,messages}} shape
// as the public API, so the dashboard's fetch helper handles both alike.

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

export type DashboardUser = { id: string; email: string };

type HandlerArgs<P, Q, B> = { request: Request; user: DashboardUser; params: P; query: Q; body: B };

type DashboardOptions<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> = { params?: P; query?: Q; body?: B };

export const sessionUser = async (): Promise<DashboardUser | null> => {
  const user = (await auth())?.user;
  return user?.id && user.email ? { id: user.id, email: user.email } : null;
};

const requireUser = async (): Promise<DashboardUser> => {
  const user = await sessionUser();
  if (!user) throw new ApiError('unauthorized', 'Sign in to use the dashboard');
  return user;
};

// Cookies are SameSite=Lax already; refusing a foreign Origin on writes is a second, cheap guard.
const assertSameOrigin = (request: Request) => {
  if (request.method === 'GET' || request.method === 'HEAD') return;
  const origin = request.headers.get('origin');
  if (origin && new URL(origin).host !== request.headers.get('host')) {
    throw new ApiError('forbidden', 'Cross-origin requests are not allowed');
  }
};

export const withDashboard =
  <P extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(
    handler: (args: HandlerArgs<z.output<P>, z.output<Q>, z.output<B>>) => Promise<Response>,
    options: DashboardOptions<P, Q, B> = {},
  ) =>
  async (request: Request, context: RouteContext): Promise<Response> => {
    try {
      const user = await requireUser();
      assertSameOrigin(request);
      const params = parseWith(options.params, await context.params, 'path');
      const query = parseWith(options.query, Object.fromEntries(new URL(request.url).searchParams), 'query');
      const body = parseWith(options.body, options.body ? await readJsonBody(request) : undefined, 'body');
      return await handler({ request, user, params, query, body });
    } catch (error) {
      return toErrorResponse(error, request);
    }
  };
