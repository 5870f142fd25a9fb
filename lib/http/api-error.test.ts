import { writeFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { API_ERROR_STATUS, ApiError, httpStatusOf } from './api-error';
import { errorResponse } from './respond';
import { toErrorResponse } from './with-api';

const request = new Request('http://localhost/video/v1/assets');

describe('error mapping', () => {
  test.each(Object.entries(API_ERROR_STATUS))('%s maps to HTTP %i', (type, status) => {
    expect(httpStatusOf(new ApiError(type as keyof typeof API_ERROR_STATUS, 'x'))).toBe(status);
  });

  test('errors use the Mux envelope and JSON headers', async () => {
    const response = errorResponse(new ApiError('not_found', 'Asset not found'));
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ error: { type: 'not_found', messages: ['Asset not found'] } });
  });

  test('429 uses the body Mux sends and carries Retry-After', async () => {
    const response = errorResponse(new ApiError('too_many_requests', 'Too many requests, retry later.', { 'retry-after': '1' }));
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toEqual({ errors: ['Too many requests, retry later.'] });
  });

  test('a dependency that is unavailable (here a full disk) answers 503 with Retry-After, which clients retry', async () => {
    const failure = await writeFile('/dev/full', 'x').then(
      () => null,
      (error: unknown) => error,
    );
    const response = toErrorResponse(failure, request);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({ error: { type: 'service_unavailable', messages: ["This node's disk is full right now; retry shortly"] } });
  });

  test('a ZodError becomes 400 invalid_parameters naming the field', async () => {
    const result = z.object({ meta: z.object({ title: z.string() }) }).safeParse({ meta: { title: 1 } });
    const response = toErrorResponse(result.error, request);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; messages: string[] } };
    expect(body.error.type).toBe('invalid_parameters');
    expect(body.error.messages[0]).toMatch(/^meta\.title: /);
  });

  test('Prisma "record not found" becomes 404; anything else a generic 500', async () => {
    expect(toErrorResponse(Object.assign(new Error('gone'), { code: 'P2025' }), request).status).toBe(404);
    const response = toErrorResponse(new Error('database exploded at /secret/path'), request);
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).not.toContain('/secret/path');
  });
});
