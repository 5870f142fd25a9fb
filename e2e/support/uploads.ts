import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import { Readable } from 'node:stream';
import { expect } from '@playwright/test';
import type { Api, Json } from './api';

// Direct uploads: the control plane (POST/GET/cancel under /video/v1/uploads, through `Api`) and
// the data plane (the upload `url`, which takes the file's bytes without API credentials, the way
// UpChunk, curl -T, next-video and the Mux CLI send them). Raw HTTP throughout, no retries, so the
// tests see exactly what the server answers.

export type UploadStatus = 'waiting' | 'asset_created' | 'errored' | 'cancelled' | 'timed_out';

/** UpChunk's chunk granularity: every chunk but the last is a multiple of 256 KiB. */
export const CHUNK_GRANULE_BYTES = 256 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** POST /video/v1/uploads, asserting 201; returns the upload object. */
export const createUpload = async (api: Api, body: Record<string, unknown> = {}): Promise<Json> => {
  const response = await api.post('/video/v1/uploads', body);
  expect(response.status, `create upload ${JSON.stringify(body)}: ${response.text}`).toBe(201);
  return response.json.data;
};

/** GET /video/v1/uploads/{id}, asserting 200; returns the upload object. */
export const getUpload = async (api: Api, uploadId: string): Promise<Json> => {
  const response = await api.get(`/video/v1/uploads/${uploadId}`);
  expect(response.status, `GET upload ${uploadId}: ${response.text}`).toBe(200);
  return response.json.data;
};

/** Polls GET /video/v1/uploads/{id} until its status is one of `statuses` (429s are waited out). */
export const waitForUploadStatus = async (
  api: Api,
  uploadId: string,
  statuses: UploadStatus[],
  timeoutMs = 20_000,
): Promise<Json> => {
  const deadline = Date.now() + timeoutMs;
  let last = 'no response yet';
  while (Date.now() < deadline) {
    const response = await api.get(`/video/v1/uploads/${uploadId}`);
    if (response.status === 429) {
      last = '429';
      await sleep(Math.max(1, Number(response.headers.get('retry-after') ?? '1')) * 1000);
      continue;
    }
    if (response.status !== 200) throw new Error(`GET upload ${uploadId} answered ${response.status}: ${response.text}`);
    const upload = response.json.data;
    last = JSON.stringify(upload);
    if (statuses.includes(upload.status)) return upload;
    await sleep(250);
  }
  throw new Error(`upload ${uploadId} did not reach ${statuses.join('/')} within ${timeoutMs} ms (last: ${last})`);
};

// --- data plane ---

export type DataPlaneResponse = {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body when it is JSON, else undefined. */
  json: Json;
  /** The `Range` header (`bytes=0-N`), null when absent. */
  range: string | null;
  /** One line for assertion messages. */
  describe: string;
};

export type DataPlaneRequest = {
  method?: 'PUT' | 'POST' | 'PATCH' | 'OPTIONS';
  body?: Buffer | Uint8Array | ReadableStream<Uint8Array>;
  headers?: Record<string, string>;
  timeoutMs?: number;
};

/** One request to an upload URL (no API credentials: the URL's token is the authorisation). */
export const sendToUploadUrl = async (url: string, request: DataPlaneRequest = {}): Promise<DataPlaneResponse> => {
  const method = request.method ?? 'PUT';
  const streaming = request.body instanceof ReadableStream;
  const response = await fetch(url, {
    method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(request.timeoutMs ?? 60_000),
    redirect: 'manual',
    // A stream body needs half duplex in Node's fetch (it is how a client streams a file).
    ...(streaming ? { duplex: 'half' } : {}),
  } as RequestInit);
  const text = await response.text();
  let json: Json = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const range = response.headers.get('range');
  const shownHeaders = ['range', 'content-type', 'access-control-allow-origin']
    .map((name) => [name, response.headers.get(name)] as const)
    .filter(([, value]) => value !== null)
    .map(([name, value]) => `${name}: ${value}`)
    .join('; ');
  return {
    status: response.status,
    headers: response.headers,
    text,
    json,
    range,
    describe: `${method} ${request.headers?.['content-range'] ? `Content-Range ${request.headers['content-range']} ` : ''}→ ${response.status} [${shownHeaders}] ${text.slice(0, 300)}`,
  };
};

/**
 * Sends bytes [start, endExclusive) of `file` with `Content-Range: bytes start-(endExclusive-1)/total`
 * (the last byte position is inclusive, as UpChunk and GCS write it).
 */
export const putChunk = (
  url: string,
  file: Buffer,
  start: number,
  endExclusive: number,
  { total = file.length, method = 'PUT', headers = {} }: { total?: number; method?: 'PUT' | 'POST' | 'PATCH'; headers?: Record<string, string> } = {},
): Promise<DataPlaneResponse> =>
  sendToUploadUrl(url, {
    method,
    body: file.subarray(start, endExclusive),
    headers: {
      'content-type': 'video/mp4',
      'content-range': `bytes ${start}-${endExclusive - 1}/${total}`,
      ...headers,
    },
  });

/** `Content-Range: bytes *\/total`: asks how much has been received (GCS-style status query). */
export const queryReceived = (url: string, total: number): Promise<DataPlaneResponse> =>
  sendToUploadUrl(url, { method: 'PUT', headers: { 'content-range': `bytes */${total}` } });

/**
 * The whole file in one request without Content-Range, streamed from disk like `curl -T`:
 * Content-Length is sent unless `chunkedTransfer` (then the body ends with the stream).
 */
export const putWholeFile = async (
  url: string,
  filePath: string,
  { method = 'PUT', chunkedTransfer = false, headers = {} }: { method?: 'PUT' | 'POST' | 'PATCH'; chunkedTransfer?: boolean; headers?: Record<string, string> } = {},
): Promise<DataPlaneResponse> => {
  const { size } = await stat(filePath);
  return sendToUploadUrl(url, {
    method,
    body: Readable.toWeb(createReadStream(filePath)) as ReadableStream<Uint8Array>,
    headers: { 'content-type': 'application/octet-stream', ...(chunkedTransfer ? {} : { 'content-length': String(size) }), ...headers },
    timeoutMs: 120_000,
  });
};

/**
 * The whole file with chunked transfer encoding (no declared size) over a connection of its own
 * (node:http, no agent), closed afterwards: unlike fetch's shared keep-alive pool, whatever state
 * the server leaves this connection in cannot delay the test's later requests.
 */
export const streamFileOnOwnConnection = (url: string, filePath: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method: 'PUT', agent: false, headers: { 'transfer-encoding': 'chunked' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => {
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        outgoing.destroy();
      });
    });
    outgoing.setTimeout(60_000, () => outgoing.destroy(new Error(`PUT ${url} got no answer within 60 s`)));
    outgoing.once('error', (error) => reject(error));
    createReadStream(filePath).pipe(outgoing);
  });

/** The `Range` value a server sends after receiving `received` bytes (`bytes=0-(received-1)`). */
export const rangeAfter = (received: number): string => `bytes=0-${received - 1}`;

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The upload URL with its token replaced (or removed with `null`). */
export const withToken = (uploadUrl: string, token: string | null): string => {
  const url = new URL(uploadUrl);
  if (token === null) url.searchParams.delete('token');
  else url.searchParams.set('token', token);
  return url.toString();
};

export const tokenOf = (uploadUrl: string): string => {
  const token = new URL(uploadUrl).searchParams.get('token');
  if (!token) throw new Error(`upload url has no token: ${uploadUrl}`);
  return token;
};

/** Assets created from an upload, found through the list filter `upload_id`. */
export const assetsOfUpload = async (api: Api, uploadId: string): Promise<Json[]> => {
  const response = await api.get(`/video/v1/assets?upload_id=${encodeURIComponent(uploadId)}`);
  expect(response.status, response.text).toBe(200);
  return response.json.data;
};
