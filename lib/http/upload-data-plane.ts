import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { getUploadCorsOrigin } from '../services/uploads/get-upload-cors-origin';
import { receiveUploadBytes } from '../services/uploads/receive-upload-bytes';
import { isWellFormedId } from '../utils/id-format';
import { ApiError } from './api-error';
import { parseUploadContentRange, receivedRangeHeader, type UploadContentRange } from './content-range';
import { originMatches } from './cors-origin';
import { toErrorResponse } from './with-api';

// HTTP for `{BASE_URL}/upload/{id}?token=…`: CORS for exactly the upload's `cors_origin`, the
// GCS-style answers @mux/upchunk understands (308 + `Range` while incomplete, 200 when done), and
// Mux-shaped JSON errors. The byte handling itself is in lib/services/uploads.

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

const uploadIdFrom = async (context: RouteContext): Promise<string> => {
  const uploadId = String((await context.params).uploadId ?? '');
  if (!isWellFormedId(uploadId)) throw new ApiError('invalid_parameters', `Upload id "${uploadId}" was invalid`);
  return uploadId;
};

// Headers granting the request's origin access, or none if the upload does not allow it.
const corsHeaders = async (request: Request, uploadId: string): Promise<Record<string, string>> => {
  const origin = request.headers.get('origin');
  if (!origin) return {};
  const allowed = await getUploadCorsOrigin({ uploadId }).catch(() => null);
  if (!originMatches(allowed, origin)) return {};
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': 'Range', vary: 'Origin' };
};

const withHeaders = (response: Response, headers: Record<string, string>): Response => {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
};

export const uploadPreflight = async (request: Request, context: RouteContext): Promise<Response> => {
  try {
    const uploadId = await uploadIdFrom(context);
    const cors = await corsHeaders(request, uploadId);
    if (!cors['access-control-allow-origin']) return new Response(null, { status: 403, headers: { vary: 'Origin' } });
    return new Response(null, {
      status: 204,
      headers: {
        ...cors,
        'access-control-allow-methods': 'PUT, POST, PATCH, OPTIONS',
        // UpChunk sends Content-Type and Content-Range, plus whatever `headers` the app adds.
        'access-control-allow-headers': request.headers.get('access-control-request-headers') ?? 'Content-Type, Content-Range',
        'access-control-max-age': '86400',
      },
    });
  } catch (error) {
    return toErrorResponse(error, request);
  }
};

const readContentRange = (request: Request): UploadContentRange | undefined => {
  const header = request.headers.get('content-range');
  if (header === null) return undefined;
  const parsed = parseUploadContentRange(header);
  if (!parsed.ok) throw new ApiError('invalid_parameters', parsed.message);
  return parsed.range;
};

const readContentLength = (request: Request): number | undefined => {
  const header = request.headers.get('content-length');
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header);
};

// Whether the handler started reading the body, whether it read all of it, and the error reading
// it failed with (the client going away), told apart from errors of what the handler called.
const trackedBody = (stream: ReadableStream<Uint8Array>) => {
  const state: { started: boolean; finished: boolean; readError?: unknown } = { started: false, finished: false };
  const chunks = (async function* () {
    state.started = true;
    try {
      yield* Readable.fromWeb(stream as NodeReadableStream<Uint8Array>);
    } catch (error) {
      state.readError = error;
      throw error;
    }
    state.finished = true;
  })();
  return { chunks, state };
};

export const uploadBytes = async (request: Request, context: RouteContext): Promise<Response> => {
  let cors: Record<string, string> = {};
  const body = request.body ? trackedBody(request.body) : null;
  try {
    const uploadId = await uploadIdFrom(context);
    cors = await corsHeaders(request, uploadId);
    const outcome = await receiveUploadBytes({
      uploadId,
      token: new URL(request.url).searchParams.get('token'),
      contentRange: readContentRange(request),
      contentLength: readContentLength(request),
      body: body?.chunks ?? null,
    });
    if (!outcome.complete) {
      return new Response(null, { status: 308, headers: { ...cors, ...receivedRangeHeader(outcome.received), 'content-length': '0' } });
    }
    return new Response(null, { status: 200, headers: { ...cors, 'content-length': '0' } });
  } catch (error) {
    // The client went away mid-body (closed tab, network loss): what arrived is kept for the
    // retry and there is nobody to answer, so it is not an error of ours to log.
    // Only the body's own failure counts: a reset of the bucket's connection (an S3 endpoint
    // restarting) has the same code, and is an outage the client must hear about as a 503.
    if (body?.state.readError === error && isClientAbort(error)) return new Response(null, { status: 400, headers: cors });
    // A body abandoned half-way (a 413 far past the limit) would leave the client's next request
    // stuck behind the unread rest, so that connection is closed. A body never touched is
    // discarded by Node itself, and closing then would cut the client off mid-send.
    const abandoned = body?.state.started === true && !body.state.finished;
    return withHeaders(toErrorResponse(error, new Request(withoutToken(request.url), { method: request.method })), {
      ...cors,
      ...(abandoned && { connection: 'close' }),
    });
  }
};

const isClientAbort = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && ((error as { code?: unknown }).code === 'ECONNRESET' || (error as Error).message === 'aborted');

// Error logs carry the request URL; the token in it grants write access to the upload.
const withoutToken = (url: string): string => {
  const parsed = new URL(url);
  if (parsed.searchParams.has('token')) parsed.searchParams.set('token', 'REDACTED');
  return parsed.toString();
};
