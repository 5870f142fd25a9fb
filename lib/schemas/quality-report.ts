import { z } from 'zod';

// An asset's quality report as stored (Asset.qualityReportJson) and as both APIs answer it: per
// rung of the just-in-time ladder, the bitrate its sampled segments actually spent against the
// rung's target, and how close they are to their source (SSIM and PSNR, see lib/media/quality/segment-quality.ts).

const rungQualitySchema = z.object({
  name: z.string(),
  width: z.number(),
  height: z.number(),
  target_bitrate: z.number(),
  average_bitrate: z.number(),
  peak_segment_bitrate: z.number(),
  ssim: z.number(),
  psnr: z.number(),
  frames: z.number(),
});

export type RungQuality = z.infer<typeof rungQualitySchema>;

const storedReportSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('measuring'), requested_at: z.string() }),
  z.object({ status: z.literal('ready'), requested_at: z.string(), measured_at: z.string(), sampled_segments: z.array(z.number()), rungs: z.array(rungQualitySchema) }),
  z.object({ status: z.literal('errored'), requested_at: z.string(), measured_at: z.string(), error: z.string() }),
]);

export type StoredQualityReport = z.infer<typeof storedReportSchema>;

export type QualityReportJson = {
  asset_id: string;
  status: 'not_requested' | StoredQualityReport['status'];
  requested_at: string | null;
  measured_at: string | null;
  error: string | null;
  sampled_segments: number[];
  rungs: RungQuality[];
};

export const parseStoredReport = (json: string | null): StoredQualityReport | null => {
  if (json === null) return null;
  const parsed = storedReportSchema.safeParse(JSON.parse(json));
  return parsed.success ? parsed.data : null;
};

export const qualityReportJson = (assetId: string, stored: StoredQualityReport | null): QualityReportJson => ({
  asset_id: assetId,
  status: stored?.status ?? 'not_requested',
  requested_at: stored?.requested_at ?? null,
  measured_at: stored && stored.status !== 'measuring' ? stored.measured_at : null,
  error: stored?.status === 'errored' ? stored.error : null,
  sampled_segments: stored?.status === 'ready' ? stored.sampled_segments : [],
  rungs: stored?.status === 'ready' ? stored.rungs : [],
});
