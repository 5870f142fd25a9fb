import { rm } from 'node:fs/promises';
import type { Prisma } from '../../db/generated/client';
import { tellOtherNodes } from '../../coordination/tell-other-nodes';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { enqueueJob } from '../../jobs/queue';
import { getLogger } from '../../log';
import { masterDirectory, masterFilePath, objectKeyOf } from '../../storage/asset-files';
import { assetInclude } from '../records/asset-record';
import { sharedStore } from '../storage/shared-storage';
import { recordWebhookEvent } from '../webhooks/record-webhook-event';
import { assetJson, masterFileName } from './master-links';

// The lifecycle of a temporary master: requested (preparing, a job makes it) → ready (a signed URL
// for MASTER_ACCESS_TTL_SECONDS) → removed (by `PUT none`, or at expiry by the maintenance sweep
// or the first read that notices), each step with its webhook, recorded with the change itself.

/** Marks the master `preparing` and queues the job that makes it, inside the caller's transaction. */
export const startMaster = async (tx: Prisma.TransactionClient, assetId: string): Promise<void> => {
  await tx.asset.update({ where: { id: assetId }, data: { masterAccess: 'temporary', masterStatus: 'preparing', masterExpiresAt: null } });
  const asset = await tx.asset.findUniqueOrThrow({ where: { id: assetId }, include: assetInclude });
  await enqueueJob({ transaction: tx, name: 'prepare-master-job', payload: { assetId }, maxAttempts: 3, dedupeKey: `master:${assetId}` });
  await recordWebhookEvent(tx, { type: 'video.asset.master.preparing', object: { type: 'asset', id: assetId }, data: assetJson(asset) });
};

/** Finishes a master the job made (if it is still wanted): ready until now + TTL. */
export const markMasterReady = async (assetId: string): Promise<boolean> =>
  getDb().$transaction(async (tx) => {
    const expiresAt = new Date(Date.now() + getEnv().masterAccessTtlSeconds * 1000);
    // Whole seconds: the URL carries the expiry in seconds and must match the stored one.
    expiresAt.setMilliseconds(0);
    const updated = await tx.asset.updateMany({
      where: { id: assetId, masterAccess: 'temporary', masterStatus: 'preparing' },
      data: { masterStatus: 'ready', masterExpiresAt: expiresAt },
    });
    if (updated.count === 0) return false;
    const asset = await tx.asset.findUniqueOrThrow({ where: { id: assetId }, include: assetInclude });
    await recordWebhookEvent(tx, { type: 'video.asset.master.ready', object: { type: 'asset', id: assetId }, data: assetJson(asset) });
    return true;
  });

export const markMasterErrored = async (assetId: string): Promise<void> => {
  await getDb().$transaction(async (tx) => {
    const updated = await tx.asset.updateMany({
      where: { id: assetId, masterAccess: 'temporary', masterStatus: 'preparing' },
      data: { masterStatus: 'errored' },
    });
    if (updated.count === 0) return;
    const asset = await tx.asset.findUniqueOrThrow({ where: { id: assetId }, include: assetInclude });
    await recordWebhookEvent(tx, { type: 'video.asset.master.errored', object: { type: 'asset', id: assetId }, data: assetJson(asset) });
  });
};

/**
 * Reverts master access to `none` and deletes the file (here and in the bucket), reporting
 * video.asset.master.deleted once. `onlyIfExpired`: the sweep's variant, a no-op for a master
 * re-requested meanwhile.
 */
export const removeMaster = async (assetId: string, { onlyIfExpired = false }: { onlyIfExpired?: boolean } = {}): Promise<boolean> => {
  const removed = await getDb().$transaction(async (tx) => {
    const updated = await tx.asset.updateMany({
      where: { id: assetId, masterAccess: 'temporary', ...(onlyIfExpired && { masterExpiresAt: { lte: new Date() } }) },
      data: { masterAccess: 'none', masterStatus: null, masterExpiresAt: null },
    });
    if (updated.count === 0) return null;
    const asset = await tx.asset.findUniqueOrThrow({ where: { id: assetId }, include: assetInclude });
    await recordWebhookEvent(tx, { type: 'video.asset.master.deleted', object: { type: 'asset', id: assetId }, data: assetJson(asset) });
    return asset;
  });
  if (!removed) return false;
  await deleteMasterFiles(assetId, masterFileName(removed.tracksJson));
  return true;
};

/** This node's copy; the node that made the master, and any that served it, each hold one. */
export const removeLocalMasterFiles = (assetId: string): Promise<void> =>
  rm(masterDirectory(getEnv().dataDir, assetId), { recursive: true, force: true });

/** Every copy: this node's, the bucket's, then the other nodes' (told over the node bus). */
export const deleteMasterFiles = async (assetId: string, fileName: string): Promise<void> => {
  const dataDir = getEnv().dataDir;
  await removeLocalMasterFiles(assetId);
  const key = objectKeyOf(dataDir, masterFilePath(dataDir, assetId, fileName));
  await sharedStore()
    ?.delete(key)
    .catch((error: unknown) => getLogger().warn({ err: error, key }, 'deleting an expired master from the bucket failed'));
  await tellOtherNodes({ type: 'master-deleted', assetId });
};

/** The maintenance sweep: removes every master whose URL has expired. Returns how many. */
export const expireDueMasters = async (now = new Date()): Promise<number> => {
  const due = await getDb().asset.findMany({
    where: { masterAccess: 'temporary', masterExpiresAt: { lte: now } },
    select: { id: true },
    take: 500,
  });
  let count = 0;
  for (const { id } of due) if (await removeMaster(id, { onlyIfExpired: true })) count += 1;
  return count;
};
