import type { z } from 'zod';
import { ApiError } from './api-error';
import { zodIssueMessages } from './zod-messages';

// Request parsing shared by the public API wrapper and the dashboard's: a JSON object body, and
// zod validation with Mux-style messages.

export const readJsonBody = async (request: Request): Promise<unknown> => {
  const text = await request.text();
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_parameters', 'Request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError('invalid_parameters', 'Request body must be a JSON object');
  }
  return parsed;
};

export const parseWith = <S extends z.ZodType>(schema: S | undefined, value: unknown, location: 'path' | 'query' | 'body'): z.output<S> => {
  if (!schema) return undefined as z.output<S>;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // Path parameters carry complete messages ("Asset id "x" was invalid"), like Mux's.
  const messages =
    location === 'path' ? result.error.issues.map((issue) => issue.message) : zodIssueMessages(result.error, location);
  throw new ApiError('invalid_parameters', messages);
};
