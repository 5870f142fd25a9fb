// The one error type services throw, in Mux's vocabulary ({"error": {"type", "messages"}}). It
// knows nothing of HTTP: lib/http maps each type to a status code (lib/http/api-error.ts).

export const API_ERROR_TYPES = [
  'invalid_parameters',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'gone',
  'failed_request',
  'payload_too_large',
  'too_many_requests',
  'internal_error',
  'service_unavailable',
] as const;

export type ApiErrorType = (typeof API_ERROR_TYPES)[number];

export class ApiError extends Error {
  readonly type: ApiErrorType;
  readonly messages: string[];
  // Response headers the answer needs (Retry-After, Allow).
  readonly headers: Record<string, string>;

  constructor(type: ApiErrorType, messages: string | string[], headers: Record<string, string> = {}) {
    const list = Array.isArray(messages) ? messages : [messages];
    super(list.join('; '));
    this.name = 'ApiError';
    this.type = type;
    this.messages = list;
    this.headers = headers;
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

export const notFound = (resource: string): ApiError => new ApiError('not_found', `${resource} not found`);

export const invalidId = (resource: string, id: string): ApiError =>
  new ApiError('invalid_parameters', `${resource} id "${id}" was invalid`);
