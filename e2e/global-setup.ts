import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSwiftS3 } from '../harness/swift-s3.mjs';
import { isCluster, publishClusterS3 } from './support/cluster-services';
import { FIXTURES_DIR_ENV, generateFixtures } from './support/fixtures';
import { CLI_BUNDLE, REPO_ROOT, SERVER_BUNDLE } from '../harness/paths';

// Runs once per `playwright test`: checks the prerequisites and generates the media fixtures that
// every worker shares (the directory is passed on through the environment). In cluster mode
// (E2E_CLUSTER=1) it also starts the one Swift + s3api every cluster makes its bucket on, and
// returns the teardown that stops it (and with it every bucket left behind).
export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  if (!existsSync(path.join(REPO_ROOT, '.next', 'BUILD_ID')) || !existsSync(SERVER_BUNDLE) || !existsSync(CLI_BUNDLE)) {
    throw new Error('No production build found (.next/BUILD_ID, .next/keyframe/server.mjs and cli.mjs). Run `npm run build` before the e2e tests.');
  }
  for (const tool of [process.env.E2E_FFMPEG ?? 'ffmpeg', process.env.E2E_FFPROBE ?? 'ffprobe']) {
    try {
      execFileSync(tool, ['-version'], { stdio: 'ignore' });
    } catch {
      throw new Error(`${tool} is required to generate the test media (npm run setup:system installs it)`);
    }
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-e2e-fixtures-'));
  process.env[FIXTURES_DIR_ENV] = dir;
  await generateFixtures(dir);
  if (!isCluster()) return undefined;
  const swift = await startSwiftS3({ bucket: 'keyframe-e2e-cluster-probe' });
  publishClusterS3({ endpoint: swift.endpoint, region: swift.region, accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey });
  return swift.stop;
}
