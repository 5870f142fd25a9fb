import { z } from 'zod';
import { isWellFormedId } from '../utils/id-format';

// A path id that is not even shaped like one of ours is a 400 (as Mux does), not a 404.
export const idParam = (resource: string) =>
  z.string().refine(isWellFormedId, {
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
