import { expect } from '@playwright/test';

// A deliberately tiny raw-HTTP client for the Mux-compatible API: no retries, no unwrapping, so
// the tests see exactly what the server sends.

export type Credentials = { id: string; secret: string };

// Response bodies are arbitrary JSON; the tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on shapes they choose
export type Json = any;

export type ApiResponse = { status: number; headers: Headers; json: Json; text: string };

export type RequestOptions = {
  /** Serialised as JSON. */
  body?: unknown;
  /** Sent verbatim with Content-Type: application/json (for malformed bodies). */
  rawBody?: string;
  /** Credentials, a literal Authorization header value, or null for none. Defaults to the client's. */
  auth?: Credentials | string | null;
  headers?: Record<string, string>;
};

export type AssetStatus = 'preparing' | 'ready' | 'errored';

export const basicAuth = ({ id, secret }: Credentials): string =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly credentials?: Credentials,
  ) {}

  as(credentials: Credentials): Api {
    return new Api(this.baseUrl, credentials);
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const auth = options.auth === undefined ? this.credentials : options.auth;
    if (typeof auth === 'string') headers.authorization = auth;
    else if (auth) headers.authorization = basicAuth(auth);
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';

    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    let json: Json = undefined;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: response.status, headers: response.headers, json, text };
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }

  post(path: string, body?: unknown, options?: RequestOptions) {
    return this.request('POST', path, { ...options, body });
  }

  patch(path: string, body?: unknown, options?: RequestOptions) {
    return this.request('PATCH', path, { ...options, body });
  }

  delete(path: string, options?: RequestOptions) {
    return this.request('DELETE', path, options);
  }

  /** POST /video/v1/assets, asserting 201; returns the asset object. */
  async createAsset(body: unknown): Promise<Json> {
    const response = await this.post('/video/v1/assets', body);
    expect(response.status, `create asset: ${response.text}`).toBe(201);
    return response.json.data;
  }

  /** All asset ids, following page numbers (limit 100). */
  async listAllAssetIds(): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; page < 1000; page += 1) {
      const response = await this.get(`/video/v1/assets?limit=100&page=${page}`);
      expect(response.status, response.text).toBe(200);
      const data = response.json.data as Array<{ id: string }>;
      if (data.length === 0) break;
      ids.push(...data.map((asset) => asset.id));
    }
    return ids;
  }

  /**
   * Polls GET /video/v1/assets/{id} about once every 1.1 s (the per-asset limit is 1 req/s after
   * a burst of 5) until the status is one of `statuses`; honours Retry-After on a 429.
   */
  async waitForStatus(
    assetId: string,
    statuses: AssetStatus[] = ['ready', 'errored'],
    timeoutMs = 45_000,
  ): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no response yet';
    while (Date.now() < deadline) {
      const response = await this.get(`/video/v1/assets/${assetId}`);
      if (response.status === 429) {
        const retryAfter = Number(response.headers.get('retry-after') ?? '1');
        last = `429 (retry after ${retryAfter} s)`;
        await sleep(Math.max(1, retryAfter) * 1000 + 100);
        continue;
      }
      if (response.status !== 200) throw new Error(`GET asset ${assetId} answered ${response.status}: ${response.text}`);
      const asset = response.json.data;
      last = `${asset.status} ${JSON.stringify(asset.errors ?? asset.progress ?? {})}`;
      if (statuses.includes(asset.status)) return asset;
      await sleep(1_100);
    }
    throw new Error(`asset ${assetId} did not reach ${statuses.join('/')} within ${timeoutMs} ms (last: ${last})`);
  }
}

/** Asserts a Mux error body: `{"error": {"type", "messages": [non-empty strings]}}`. */
export const expectApiError = (
  response: ApiResponse,
  status: number,
  type: string,
  mention?: RegExp,
): void => {
  const context = `${status} ${type} expected; got ${response.status} ${response.text}`;
  expect(response.status, context).toBe(status);
  expect(response.headers.get('content-type') ?? '', context).toContain('application/json');
  expect(response.json, context).toEqual({ error: { type, messages: expect.any(Array) } });
  const messages = response.json.error.messages as unknown[];
  expect(messages.length, context).toBeGreaterThan(0);
  for (const message of messages) {
    expect(typeof message, context).toBe('string');
    expect((message as string).trim().length, context).toBeGreaterThan(0);
  }
  if (mention) {
    expect(
      messages.some((message) => mention.test(message as string)),
      `a message should mention ${mention}: ${JSON.stringify(messages)}`,
    ).toBe(true);
  }
};
