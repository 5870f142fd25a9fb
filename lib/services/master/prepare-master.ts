import { mkdir, rename, rm } from 'node:fs/promises';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import type { MediaProbe } from '../../media/ffprobe';
import { buildMasterArgs, planMaster } from '../../media/master/master-args';
import { summariseToolError } from '../../media/media-errors';
import { inputReadFailure } from '../../media/input-read-failure';
import { runProcess } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';
import { masterDirectory, masterFilePath } from '../../storage/asset-files';
import { generateId } from '../../utils/ids';
import { sourceInput } from '../inputs/source-input';
import { shareFile, sharedStore } from '../storage/shared-storage';
import { masterFileName } from './master-links';
import { markMasterReady } from './master-state';

const MASTER_TIMEOUT_MS = 6 * 60 * 60 * 1000;

// Makes the master file from the asset's kept source (see master-args.ts), written under a
// temporary name and renamed into place, shared to the bucket (with S3 any node serves it), then
// marked ready. A master no longer wanted (set to `none`, asset deleted) is left alone.
export const prepareMaster = async ({ assetId, signal }: { assetId: string; signal: AbortSignal }): Promise<void> => {
  const env = getEnv();
  const asset = await getDb().asset.findUnique({ where: { id: assetId } });
  if (!asset || asset.status !== 'ready' || asset.masterAccess !== 'temporary' || asset.masterStatus !== 'preparing') return;
  if (!asset.probeJson) throw new Error(`asset ${assetId} has no probe`);
  const plan = planMaster(JSON.parse(asset.probeJson) as MediaProbe);
  const finalPath = masterFilePath(env.dataDir, assetId, masterFileName(asset.tracksJson));
  const temporary = masterFilePath(env.dataDir, assetId, `.${generateId()}.${plan.extension}.tmp`);
  await mkdir(masterDirectory(env.dataDir, assetId), { recursive: true });
  const input = await sourceInput(assetId);
  try {
    const args = buildMasterArgs({ input, output: temporary, plan });
    const result = await runProcess({ command: env.ffmpegPath, args, signal, timeoutMs: MASTER_TIMEOUT_MS, background: true, children: childProcesses() });
    const unread = inputReadFailure(args, result.stderr);
    if (unread) throw unread;
    if (result.exitCode !== 0) throw new Error(`making the master failed: ${summariseToolError(result.stderr, input) ?? `exit ${result.exitCode}`}`);
    await rename(temporary, finalPath);
  } finally {
    await rm(temporary, { force: true });
  }
  if (sharedStore()) await shareFile(finalPath);
  await markMasterReady(assetId);
};
