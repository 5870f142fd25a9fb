import { ApiError } from './api-error';

// Errors that say something Keyframe depends on cannot answer right now (the database restarting,
// object storage answering 503 or hanging, Redis gone, this node's disk full), as opposed to a bug
// or a bad request. A client is told to come back (503 with Retry-After, which UpChunk and the Mux
// SDKs retry), and a job retries later without spending its attempts: an outage is no reason to
// fail a valid asset. Recognised by shape, so this layer needs none of the client libraries.

export type UnavailableDependency = 'database' | 'storage' | 'queue' | 'disk' | 'network';

// Prisma: can't reach the server, timed out, connection closed, pool timeout, and an interactive
// transaction that ran out of time (a node paused or starved mid-transaction: it was rolled back).
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
// Driver adapters' error kinds (@prisma/driver-adapter-utils).
const ADAPTER_UNAVAILABLE = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
// PostgreSQL SQLSTATEs: connection exceptions (08…), admin/crash shutdown and "starting up" (57P01–03),
// too many connections, disk full, out of memory.
const POSTGRES_UNAVAILABLE = /^(08...|57P0[123]|53[123]00)$/;
// SQLite primary result codes: BUSY, LOCKED, IOERR, FULL.
const SQLITE_UNAVAILABLE = new Set([5, 6, 10, 13]);
const SQLITE_UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|FULL)/;
// node-postgres' own messages when the server dropped the connection, or had before this query.
const PG_CONNECTION_LOST = /^(Connection terminated( unexpectedly| due to connection timeout)?|Client has encountered a connection error and is not queryable)$/;
// Socket-level failures talking to a dependency.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);
// The AWS SDK's names for a request that timed out or a service that asks to be called later.
const S3_UNAVAILABLE_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeTooSkewed', 'ServiceUnavailable', 'SlowDown', 'InternalError', 'ThrottlingException']);
// ioredis: commands refused while the connection is down.
const REDIS_UNAVAILABLE = /^(Connection is closed\.|Stream isn't writeable|Reached the max retries per request limit)/;

/** A dependency that failed in a way Keyframe recognised itself (not from a client library's error shape). */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: UnavailableDependency,
    message: string,
  ) {
    super(message);
    this.name = 'DependencyUnavailableError';
  }
}

/** A dependency that did not answer within the time a caller could give it (it may still answer later). */
export class DependencyTimeoutError extends DependencyUnavailableError {
  constructor(dependency: UnavailableDependency, message: string) {
    super(dependency, message);
    this.name = 'DependencyTimeoutError';
  }
}

type Shape = {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  extendedCode?: unknown;
  severity?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
  $metadata?: { httpStatusCode?: unknown };
  $fault?: unknown;
};

const asShape = (value: unknown): Shape | null => (typeof value === 'object' && value !== null ? (value as Shape) : null);

const classifyOne = (error: Shape): UnavailableDependency | null => {
  if (error instanceof DependencyUnavailableError) return error.dependency;
  const { code, name, message, kind } = error;
  if (typeof code === 'string' && PRISMA_UNAVAILABLE.has(code)) return 'database';
  if (typeof kind === 'string') {
    if (ADAPTER_UNAVAILABLE.has(kind)) return 'database';
    if (kind === 'postgres' && typeof error.originalCode === 'string' && POSTGRES_UNAVAILABLE.test(error.originalCode)) return 'database';
    if (kind === 'sqlite' && typeof error.extendedCode === 'number' && SQLITE_UNAVAILABLE.has(error.extendedCode & 0xff)) return 'database';
  }
  // A node-postgres error carries its SQLSTATE and a severity.
  if (typeof code === 'string' && typeof error.severity === 'string' && POSTGRES_UNAVAILABLE.test(code)) return 'database';
  if (typeof code === 'string' && SQLITE_UNAVAILABLE_CODES.test(code)) return code.startsWith('SQLITE_FULL') ? 'disk' : 'database';
  if (typeof message === 'string' && PG_CONNECTION_LOST.test(message)) return 'database';
  if (error.$metadata !== undefined) {
    const status = error.$metadata.httpStatusCode;
    if ((typeof status === 'number' && status >= 500) || error.$fault === 'server') return 'storage';
    if (typeof name === 'string' && S3_UNAVAILABLE_NAMES.has(name)) return 'storage';
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'storage';
  }
  if (name === 'MaxRetriesPerRequestError' || (typeof message === 'string' && REDIS_UNAVAILABLE.test(message))) return 'queue';
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'disk';
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'network';
  return null;
};

/** Which dependency the error says is unavailable, looking through wrapped causes; else null. */
export const unavailableDependencyOf = (error: unknown): UnavailableDependency | null => {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const next = queue.shift();
    const shape = asShape(next);
    if (!shape || seen.has(shape) || seen.size > 8) continue;
    seen.add(shape);
    // An answer Keyframe already gave is not an outage of something else.
    if (shape instanceof ApiError) return null;
    const found = classifyOne(shape);
    if (found) return found;
    queue.push(shape.cause, shape.meta?.driverAdapterError, ...(Array.isArray((shape as { errors?: unknown }).errors) ? (shape as { errors: unknown[] }).errors : []));
  }
  return null;
};

const WHAT_IS_UNAVAILABLE: Record<UnavailableDependency, string> = {
  database: 'The database is unavailable',
  storage: 'Object storage is unavailable',
  queue: 'The job queue (Redis) is unavailable',
  disk: "This node's disk is full",
  network: 'A service Keyframe depends on cannot be reached',
};

// Long enough for a restart or a failover to finish, short enough that a client's retry lands soon after.
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** The answer for a request that failed because a dependency is unavailable; null for any other error. */
export const unavailableApiError = (error: unknown): ApiError | null => {
  const dependency = unavailableDependencyOf(error);
  if (!dependency) return null;
  return new ApiError('service_unavailable', `${WHAT_IS_UNAVAILABLE[dependency]} right now; retry shortly`, {
    'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
  });
};
