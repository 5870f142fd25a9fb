import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChaos, type ChaosOptions, type ChaosResult } from '../chaos/run-chaos';
import { startSwiftS3 } from '../swift-s3.mjs';

// The bench's chaos phase: an OpenStack Swift of its own for the bucket (its data in a temp folder,
// removed with it), then the chaos run (harness/chaos/run-chaos.ts), which brings everything else.

export const measureChaos = async ({ options, log }: { options: ChaosOptions; log: (line: string) => void }): Promise<ChaosResult> => {
  log('chaos: starting OpenStack Swift (s3api) for the bucket…');
  const swift = await startSwiftS3({ bucket: `keyframe-chaos-${randomBytes(4).toString('hex')}` });
  try {
    const logDir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-chaos-logs-'));
    log(`chaos: the cluster's logs go to ${logDir} at the end`);
    return await runChaos({ s3: swift, options, log, logDir });
  } finally {
    await swift.stop();
  }
};
