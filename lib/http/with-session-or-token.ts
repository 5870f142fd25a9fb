import type { AuthenticatedToken } from '../auth/verify-access-token';
import { authenticate, toErrorResponse, unauthorized } from './with-api';
import { sessionUser, type DashboardUser } from './with-dashboard';

// For the few read-only operator routes both audiences use: the dashboard polls them with its
// session cookie, scripts and the bench call them with an access token over HTTP Basic, exactly as
// the /video/v1 API. Credentials, when sent, decide alone: a wrong token is a 401 even in a browser
// that also holds a session, so a script never passes by accident.

export type Caller = { kind: 'token'; token: AuthenticatedToken } | { kind: 'user'; user: DashboardUser };

const identify = async (request: Request): Promise<Caller> => {
  if (request.headers.has('authorization')) return { kind: 'token', token: await authenticate(request) };
  const user = await sessionUser();
  // With neither, the 401 carries the API's Basic challenge: a dashboard page always has its cookie.
  if (!user) throw unauthorized();
  return { kind: 'user', user };
};

export const withSessionOrToken =
  (handler: (args: { request: Request; caller: Caller }) => Promise<Response>) =>
  async (request: Request): Promise<Response> => {
    try {
      return await handler({ request, caller: await identify(request) });
    } catch (error) {
      return toErrorResponse(error, request);
    }
  };
