import { getDb } from '../../db/client';
import { ApiError, notFound } from '../../errors/api-error';
import { enqueueJob } from '../../jobs/queue';
import { notifyJobEnqueued } from '../../jobs/signals';
import type { PlaybackPlan } from '../playback/playback-plan';
import { parseStoredReport, qualityReportJson, type QualityReportJson, type StoredQualityReport } from '../../schemas/quality-report';

// Quality reports are made when asked for (API or dashboard), never on their own: measuring encodes
// sampled segments and decodes their source again, work only an operator who wants the numbers
// should spend. The measurement is a job whose encodes run on idle encoders (measure-asset-quality.ts).

export const MEASURE_QUALITY_JOB = 'measure-quality-job';

export const getQualityReport = async ({ assetId }: { assetId: string }): Promise<QualityReportJson> => {
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { qualityReportJson: true } });
  if (!asset) throw notFound('Asset');
  return qualityReportJson(assetId, parseStoredReport(asset.qualityReportJson));
};

/** Starts a measurement (again, if one was made): the report is `measuring` until the job is done. */
export const requestQualityReport = async ({ assetId }: { assetId: string }): Promise<QualityReportJson> => {
  const db = getDb();
  const report = await db.$transaction(async (tx) => {
    const asset = await tx.asset.findUnique({ where: { id: assetId }, select: { status: true, planJson: true, qualityReportJson: true } });
    if (!asset) throw notFound('Asset');
    if (asset.status !== 'ready' || !asset.planJson) throw new ApiError('failed_request', 'The quality of an asset can be measured once it is ready');
    const plan = JSON.parse(asset.planJson) as PlaybackPlan;
    if (!plan.video || !plan.rungs.some((rung) => !rung.isBackground)) throw new ApiError('invalid_parameters', 'This asset has no video to measure');
    const current = parseStoredReport(asset.qualityReportJson);
    if (current?.status === 'measuring') return current;
    const measuring: StoredQualityReport = { status: 'measuring', requested_at: new Date().toISOString() };
    await tx.asset.update({ where: { id: assetId }, data: { qualityReportJson: JSON.stringify(measuring) } });
    await enqueueJob({ name: MEASURE_QUALITY_JOB, payload: { assetId }, maxAttempts: 2, dedupeKey: `quality:${assetId}:${measuring.requested_at}`, transaction: tx });
    return measuring;
  });
  notifyJobEnqueued();
  return qualityReportJson(assetId, report);
};
