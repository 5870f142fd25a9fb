import type { z } from 'zod';
import type { JobDefinition } from './define-job';
import { ingestAssetJob } from './definitions/ingest-asset-job';

// Every job the worker can run, keyed by name.
export const jobRegistry = {
  'ingest-asset-job': ingestAssetJob,
} satisfies Record<string, JobDefinition<z.ZodType>>;

export type JobName = keyof typeof jobRegistry;
