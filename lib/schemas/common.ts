import { z } from 'zod';

const WELL_FORMED_ID = /^[0-9A-Za-z]{20,64}$/;

// A path id that is not even shaped like one of ours is a 400 (as Mux does), not a 404.
export const idParam = (resource: string) =>
  z.string().refine((value) => WELL_FORMED_ID.test(value), {
    error: (issue) => `${resource} id "${String(issue.input)}" was invalid`,
  });

const positiveIntFromQuery = (name: string, { max }: { max?: number } = {}) =>
  z
    .string()
    .regex(/^\d+$/, { error: `must be a positive integer` })
    .transform(Number)
    .pipe(
      max === undefined
        ? z.number().int().min(1, { error: `${name} must be at least 1` })
        : z
            .number()
            .int()
            .min(1, { error: `${name} must be at least 1` })
            .max(max, { error: `${name} must be at most ${max}` }),
    );

export const MAX_PAGE_LIMIT = 100;

export const pageQuerySchema = z.object({
  limit: positiveIntFromQuery('limit', { max: MAX_PAGE_LIMIT }).optional(),
  page: positiveIntFromQuery('page').optional(),
});

export const unixSeconds = (date: Date): string => String(Math.floor(date.getTime() / 1000));
