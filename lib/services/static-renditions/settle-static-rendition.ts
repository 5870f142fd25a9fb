import { getDb } from '../../db/client';
import type { Prisma } from '../../db/generated/client';
import { assetJson } from '../master/master-links';
import { serializeStaticRenditions, staticRenditionSelect } from '../../schemas/static-rendition';
import { assetInclude } from '../records/asset-record';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { staticRenditionEvent } from './static-rendition-events';

export type StaticRenditionOutcome =
  | { status: 'ready'; width: number | null; height: number | null; bitrate: number | null; fileSize: bigint }
  | { status: 'skipped' | 'errored'; reason: string };

// The legacy setting reports the asset once, when none of its files is preparing any more.
const reportLegacySettled = async (tx: Prisma.TransactionClient, assetId: string): Promise<void> => {
  const asset = await tx.asset.findUnique({ where: { id: assetId }, include: assetInclude });
  if (!asset) return;
  const legacy = asset.staticRenditions.filter((file) => file.viaMp4Support);
  const summary = serializeStaticRenditions(legacy);
  if (!summary || summary.status === 'preparing') return;
  const type = summary.status === 'errored' ? 'video.asset.static_renditions.errored' : 'video.asset.static_renditions.ready';
  await recordWebhookEvent(tx, { type, object: { type: 'asset', id: assetId }, data: assetJson(asset) });
};

/**
 * Records how building a file ended, with its webhooks, if it is still `preparing`. Returns false
 * when it is not (deleted, or settled by another worker): the caller's file is then not wanted.
 */
export const settleStaticRendition = async ({ renditionId, outcome }: { renditionId: string; outcome: StaticRenditionOutcome }): Promise<boolean> =>
  getDb().$transaction(async (tx) => {
    const data =
      outcome.status === 'ready'
        ? { status: 'ready', width: outcome.width, height: outcome.height, bitrate: outcome.bitrate, fileSize: outcome.fileSize, errorMessage: null }
        : { status: outcome.status, errorMessage: outcome.reason };
    const updated = await tx.staticRendition.updateMany({ where: { id: renditionId, status: 'preparing' }, data });
    if (updated.count === 0) return false;
    const file = await tx.staticRendition.findUniqueOrThrow({ where: { id: renditionId }, select: { ...staticRenditionSelect, assetId: true } });
    if (file.viaMp4Support) {
      await reportLegacySettled(tx, file.assetId);
    } else {
      const reason = outcome.status === 'ready' ? undefined : outcome.reason;
      await recordWebhookEvent(tx, staticRenditionEvent(`video.asset.static_rendition.${outcome.status}`, file.assetId, file, reason));
    }
    return true;
  });
