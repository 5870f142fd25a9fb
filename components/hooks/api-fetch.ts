// The dashboard's one fetch helper. Dashboard JSON routes answer like the public API, so an error
// is always {"error":{"type","messages"}}; it becomes an ApiFetchError the forms can show as is.

export class ApiFetchError extends Error {
  readonly status: number;
  readonly type: string;
  readonly messages: string[];

  constructor(status: number, type: string, messages: string[]) {
    super(messages.join(' ') || `Request failed with status ${status}`);
    this.name = 'ApiFetchError';
    this.status = status;
    this.type = type;
    this.messages = messages.length > 0 ? messages : [this.message];
  }
}

type ErrorEnvelope = { error?: { type?: unknown; messages?: unknown } };

const toApiFetchError = (status: number, body: unknown): ApiFetchError => {
  const error = (body as ErrorEnvelope | null)?.error;
  const messages = Array.isArray(error?.messages) ? error.messages.filter((m): m is string => typeof m === 'string') : [];
  return new ApiFetchError(status, typeof error?.type === 'string' ? error.type : 'unknown', messages);
};

export const errorMessages = (error: unknown): string[] =>
  error instanceof ApiFetchError ? error.messages : [error instanceof Error ? error.message : String(error)];

export const apiFetch = async <T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> => {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers: init.body === undefined ? undefined : { 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: 'same-origin',
  });
  const text = await response.text();
  const body: unknown = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    // The session expired or was signed out in another tab: back to sign-in.
    if (response.status === 401 && typeof window !== 'undefined') window.location.assign('/sign-in');
    throw toApiFetchError(response.status, body);
  }
  return body as T;
};
