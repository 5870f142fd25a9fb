import { ApiError, type ApiErrorType } from '../errors/api-error';

// The one table from error type to HTTP status. The error type itself lives below the HTTP layer
// (lib/errors), so services throw it without knowing about HTTP.

import { unavailableApiError } from '../errors/dependency-unavailable';
import { getLogger } from '../log';

export { ApiError, invalidId, isApiError, notFound, type ApiErrorType } from '../errors/api-error';

export const API_ERROR_STATUS: Record<ApiErrorType, number> = {
  invalid_parameters: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  failed_request: 412,
  payload_too_large: 413,
  too_many_requests: 429,
  internal_error: 500,
  service_unavailable: 503,
};

export const httpStatusOf = (error: ApiError): number => API_ERROR_STATUS[error.type];

export const UNKNOWN_ROUTE_MESSAGE = "The requested resource either doesn't exist or you don't have access to it.";

/**
 * The answer to a request that failed with an error no service turned into an ApiError: 503 with
 * Retry-After when a dependency is unavailable (a client can act on that), else 500.
 */
export const unexpectedApiError = (error: unknown): ApiError =>
  unavailableApiError(error) ?? new ApiError('internal_error', 'An unexpected error occurred');

/**
 * unexpectedApiError, logged with what the request was: an outage as a warning (it is reported
 * where it is detected), anything else, a 500, as an error.
 */
export const loggedUnexpectedApiError = (error: unknown, context: Record<string, unknown>, what: string): ApiError => {
  const answer = unexpectedApiError(error);
  if (answer.type === 'service_unavailable') getLogger().warn({ err: error, ...context }, `${what}: a dependency is unavailable`);
  else getLogger().error({ err: error, ...context }, what);
  return answer;
};
