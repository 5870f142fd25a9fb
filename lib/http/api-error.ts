// The one error type services throw, and the one table from error type to HTTP status. The wire
// shape is Mux's: {"error": {"type": "...", "messages": ["..."]}}.

export const API_ERROR_STATUS = {
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
} as const;

export type ApiErrorType = keyof typeof API_ERROR_STATUS;

export class ApiError extends Error {
  readonly type: ApiErrorType;
  readonly messages: string[];
  readonly headers: Record<string, string>;

  constructor(type: ApiErrorType, messages: string | string[], headers: Record<string, string> = {}) {
    const list = Array.isArray(messages) ? messages : [messages];
    super(list.join('; '));
    this.name = 'ApiError';
    this.type = type;
    this.messages = list;
    this.headers = headers;
  }

  get status(): number {
    return API_ERROR_STATUS[this.type];
  }
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

export const notFound = (resource: string): ApiError => new ApiError('not_found', `${resource} not found`);

export const invalidId = (resource: string, id: string): ApiError =>
  new ApiError('invalid_parameters', `${resource} id "${id}" was invalid`);

export const UNKNOWN_ROUTE_MESSAGE = "The requested resource either doesn't exist or you don't have access to it.";
