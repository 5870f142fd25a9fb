import type { IncomingMessage } from 'node:http';
import parseRange from 'range-parser';
import { etagMatches } from './etag-match';

// What to answer for a stored representation given the request's conditional and range headers:
// 304, 416, 206 with one byte range, or 200 (RFC 9110 §13, §14). Pure, so the app process and the
// playback workers answer a file alike.

export type Representation = { size: number; etag: string; lastModified: Date };

export type ResponsePlan = {
  status: 200 | 206 | 304 | 416;
  /** The given headers plus Content-Range where one applies; never Content-Length. */
  headers: string[];
  /** Content-Length to send (for HEAD too), or null for a 304. */
  contentLength: number | null;
  /** Bytes of the representation to send as the body, or null when no body follows. */
  span: { start: number; end: number } | null;
};

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

// If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3). Generated text is judged by its
// ETag alone: a playlist can change (a background rung completes) without its date moving.
const isNotModified = (request: IncomingMessage, representation: Representation, datesValidate: boolean): boolean => {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return etagMatches(ifNoneMatch, representation.etag);
  const ifModifiedSince = request.headers['if-modified-since'];
  if (!datesValidate || ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return Number.isFinite(since) && seconds(representation.lastModified) <= Math.floor(since / 1000);
};

// A Range whose If-Range no longer matches is ignored: the client gets the whole, current body.
const rangeStillValid = (request: IncomingMessage, representation: Representation): boolean => {
  const header = request.headers['if-range'];
  if (typeof header !== 'string') return true;
  const ifRange = header.trim();
  // A weak tag never validates a range (RFC 9110 §13.1.5).
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return ifRange === representation.etag;
  const date = Date.parse(ifRange);
  return Number.isFinite(date) && Math.floor(date / 1000) === seconds(representation.lastModified);
};

type Span = { status: 200 | 206 | 416; start: number; end: number };

const selectSpan = (request: IncomingMessage, representation: Representation): Span => {
  const whole: Span = { status: 200, start: 0, end: representation.size - 1 };
  const header = request.headers.range;
  if (header === undefined || !rangeStillValid(request, representation)) return whole;
  const ranges = parseRange(representation.size, header, { combine: true });
  if (ranges === -1) return { status: 416, start: 0, end: -1 };
  // Malformed, not bytes, or several ranges (answering with the whole body is allowed and simpler
  // than multipart/byteranges, which no player asks for).
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return whole;
  const [range] = ranges;
  return range ? { status: 206, start: range.start, end: range.end } : whole;
};

export const planResponse = (request: IncomingMessage, headers: string[], representation: Representation, datesValidate: boolean): ResponsePlan => {
  if (isNotModified(request, representation, datesValidate)) return { status: 304, headers, contentLength: null, span: null };
  const span = selectSpan(request, representation);
  if (span.status === 416) return { status: 416, headers: [...headers, 'content-range', `bytes */${representation.size}`], contentLength: 0, span: null };
  const length = Math.max(0, span.end - span.start + 1);
  const withRange = span.status === 206 ? [...headers, 'content-range', `bytes ${span.start}-${span.end}/${representation.size}`] : headers;
  const bodyFollows = request.method !== 'HEAD' && length > 0;
  return { status: span.status, headers: withRange, contentLength: length, span: bodyFollows ? { start: span.start, end: span.end } : null };
};

/** The plan's headers with its Content-Length, ready for writeHead. */
export const headersWithLength = (plan: ResponsePlan): string[] =>
  plan.contentLength === null ? plan.headers : [...plan.headers, 'content-length', String(plan.contentLength)];
