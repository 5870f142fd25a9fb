import type { z } from 'zod';
import type { JobDefinition } from '../jobs/define-job';
import { buildStaticRenditionJob } from './definitions/build-static-rendition-job';
import { encodeAudioJob } from './definitions/encode-audio-job';
import { encodeBackgroundRungsJob } from './definitions/encode-background-rungs-job';
import { encodeBackgroundSegmentJob } from './definitions/encode-background-segment-job';
import { ingestAssetJob } from './definitions/ingest-asset-job';
import { measureQualityJob } from './definitions/measure-quality-job';
import { prepareMasterJob } from './definitions/prepare-master-job';
import { generateCaptionsJob, prepareAudioTrackJob, prepareTextTrackJob } from './definitions/track-jobs';

// Every job the worker can run, keyed by name.
export const jobRegistry = {
  'ingest-asset-job': ingestAssetJob,
  'encode-audio-job': encodeAudioJob,
  'encode-background-rungs-job': encodeBackgroundRungsJob,
  'encode-background-segment-job': encodeBackgroundSegmentJob,
  'build-static-rendition-job': buildStaticRenditionJob,
  'prepare-master-job': prepareMasterJob,
  'prepare-text-track-job': prepareTextTrackJob,
  'prepare-audio-track-job': prepareAudioTrackJob,
  'generate-captions-job': generateCaptionsJob,
  'measure-quality-job': measureQualityJob,
} satisfies Record<string, JobDefinition<z.ZodType>>;

export type JobName = keyof typeof jobRegistry;
