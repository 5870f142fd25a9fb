import { basicAuth } from '../http';
import type { ChaosTarget } from './target';
import type { RequestKind, RequestRecord } from './workload-record';

// Every request the workload makes goes through here and lands in the record, whatever happens to
// it: an answer (any status), a network error or the client timeout (status 0). Nothing throws, so
// a fault shows up as figures rather than as a crashed client. The timeout is long enough (60 s)
// that a hung server is recorded as a hang instead of blending in with ordinary slowness.

export const CLIENT_TIMEOUT_MS = 60_000;

export type Answer = {
  status: number;
  /** null when there was no answer. */
  headers: Headers | null;
  body: Buffer;
  /** The parsed body when it is JSON. */
  json: unknown;
};

export type CallOptions = {
  kind: RequestKind;
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** What the record shows as the path (default: the URL's path and query). */
  recordedPath?: string;
  note?: string;
};

export type RecordedHttp = {
  call(options: CallOptions): Promise<Answer>;
  /** A request to the Mux API on the balancer, with the target's credentials and a JSON body. */
  api(kind: RequestKind, method: string, path: string, body?: unknown): Promise<Answer>;
};

const parseJson = (body: Buffer): unknown => {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
};

/** `error.type` of a Mux error body (`{"error":{"type":…,"messages":[…]}}`). */
export const muxErrorType = (json: unknown): string | undefined => {
  const type = (json as { error?: { type?: unknown } } | undefined)?.error?.type;
  return typeof type === 'string' ? type : undefined;
};

/** The note of a request still in flight at the drain deadline (not a fault's doing). */
export const CUT_SHORT_NOTE = 'cut short when the workload stopped';

const failureNote = (error: unknown, cutShort: AbortSignal): string => {
  if (cutShort.aborted) return CUT_SHORT_NOTE;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${CLIENT_TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
};

/** `cutShort` aborts whatever is still in flight (the workload's drain deadline). */
export const createRecordedHttp = (target: ChaosTarget, requests: RequestRecord[], cutShort: AbortSignal): RecordedHttp => {
  const authorization = basicAuth(target.token.id, target.token.secret);

  const call = async (options: CallOptions): Promise<Answer> => {
    const url = new URL(options.url);
    const startedAt = Date.now();
    const sentAt = performance.now();
    const entry: RequestRecord = {
      kind: options.kind,
      method: options.method,
      path: options.recordedPath ?? `${url.pathname}${url.search}`,
      startedAt,
      durationMs: 0,
      status: 0,
      ...(options.note ? { note: options.note } : {}),
    };
    try {
      const response = await fetch(url, {
        method: options.method,
        headers: options.headers,
        body: options.body as BodyInit | undefined,
        // A 308 is an upload's "send the next chunk", not a redirect to follow.
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(CLIENT_TIMEOUT_MS), cutShort]),
      });
      const body = Buffer.from(await response.arrayBuffer());
      const json = parseJson(body);
      entry.status = response.status;
      const retryAfter = response.headers.get('retry-after');
      if (retryAfter !== null) entry.retryAfter = retryAfter;
      const errorType = muxErrorType(json);
      if (errorType) entry.errorType = errorType;
      return { status: response.status, headers: response.headers, body, json };
    } catch (error) {
      entry.note = [options.note, failureNote(error, cutShort)].filter(Boolean).join('; ');
      return { status: 0, headers: null, body: Buffer.alloc(0), json: undefined };
    } finally {
      entry.durationMs = Math.round(performance.now() - sentAt);
      requests.push(entry);
    }
  };

  const api = (kind: RequestKind, method: string, path: string, body?: unknown): Promise<Answer> =>
    call({
      kind,
      method,
      url: `${target.baseUrl}${path}`,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  return { call, api };
};

/** `data` of a Mux success envelope. */
export const dataOf = <T>(answer: Answer): T | undefined => (answer.json as { data?: T } | undefined)?.data;

export const abortableSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
