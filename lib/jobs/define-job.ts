import type { Logger } from 'pino';
import type { z } from 'zod';

export type JobContext = { signal: AbortSignal; log: Logger; attempt: number; maxAttempts: number };

export type JobDefinition<S extends z.ZodType> = {
  name: string;
  payloadSchema: S;
  maxAttempts: number;
  run: (payload: z.output<S>, context: JobContext) => Promise<void>;
  // Runs once when the job will not be retried any more, so no entity is left half-processed.
  onGiveUp?: (payload: z.output<S>, error: unknown) => Promise<void>;
};

export const defineJob = <S extends z.ZodType>(definition: JobDefinition<S>): JobDefinition<S> => definition;
