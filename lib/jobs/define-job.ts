import type { Logger } from 'pino';
import type { z } from 'zod';

export type JobContext = { signal: AbortSignal; log: Logger; attempt: number; maxAttempts: number };

// Slots a kind of job runs in; kinds that name the same slots share them.
export type JobSlots = { name: string; size: () => number };

export type JobDefinition<S extends z.ZodType> = {
  name: string;
  payloadSchema: S;
  maxAttempts: number;
  /**
   * Where jobs of this kind run (sizes are read when the worker starts). Kinds get separate slots
   * because their costs differ: an ingest mostly waits on the network, an encode job keeps a core
   * busy, and neither may take the other's slots.
   */
  slots: JobSlots;
  run: (payload: z.output<S>, context: JobContext) => Promise<void>;
  // Runs once when the job will not be retried any more, so no entity is left half-processed.
  onGiveUp?: (payload: z.output<S>, error: unknown) => Promise<void>;
};

export const defineJob = <S extends z.ZodType>(definition: JobDefinition<S>): JobDefinition<S> => definition;
