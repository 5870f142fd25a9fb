import { randomBytes } from 'node:crypto';
import { ApiError, httpStatusOf } from './api-error';

// Response helpers producing Mux's envelope and headers.

const baseHeaders = (): Record<string, string> => ({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'max-age=0, private, must-revalidate',
  'x-request-id': randomBytes(10).toString('hex'),
});

export const jsonResponse = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { ...baseHeaders(), ...headers } });

export const dataResponse = (data: unknown, status = 200, extra: Record<string, unknown> = {}): Response =>
  jsonResponse({ data, ...extra }, status);

export const noContentResponse = (): Response => {
  const { 'content-type': _contentType, ...headers } = baseHeaders();
  return new Response(null, { status: 204, headers });
};

// Mux answers rate limiting with a different body shape; clients (mux-node) only look at the
// status and the Retry-After header, but we keep the body as Mux sends it.
export const errorBody = (error: ApiError): unknown =>
  error.type === 'too_many_requests' ? { errors: error.messages } : { error: { type: error.type, messages: error.messages } };

export const errorResponse = (error: ApiError): Response => jsonResponse(errorBody(error), httpStatusOf(error), error.headers);
