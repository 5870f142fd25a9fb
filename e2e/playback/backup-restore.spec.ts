import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLI_ENTRY, REPO_ROOT, TSX_BIN } from '../../harness/paths';
import { Api, type Json } from '../support/api';
import { E2E_DATABASE_URL } from '../support/e2e-database';
import { httpGet, parseMediaPlaylist } from '../support/hls';
import { decodeSegment } from '../support/jit';
import { isCluster, type KeyframeServer } from '../support/keyframe-server';
import { createPlayableAsset, expect, loadMultivariant, multivariantUrl, test } from '../support/playback';
import { disposeKeyframe, startKeyframe } from '../support/test';

// `keyframe backup` while the server creates assets and encodes segments, then `keyframe restore`
// into a fresh DATA_DIR and a server started on it: every asset of the backup is there and plays
// (its segments encoded again from the restored source), with the same access token.

const execFileAsync = promisify(execFile);

const servers: KeyframeServer[] = [];
const scratch = mkdtempSync(path.join(os.tmpdir(), 'keyframe-backup-e2e-'));
test.afterAll(async () => {
  await disposeKeyframe(...servers);
  rmSync(scratch, { recursive: true, force: true });
});

const playsFirstSegment = async (server: KeyframeServer, playbackId: string, label: string) => {
  const multivariant = await loadMultivariant(multivariantUrl(server, playbackId));
  const variant = multivariant.video[0]!;
  const playlist = parseMediaPlaylist((await httpGet(variant.url)).text, variant.url);
  const [init, segment] = await Promise.all([httpGet(playlist.map!.url), httpGet(playlist.segments[0]!.url)]);
  expect([init.status, segment.status], `${label}: ${variant.url}`).toEqual([200, 200]);
  const decoded = await decodeSegment(scratch, init.body, segment.body, label);
  expect(decoded.ok, `${label}: ${decoded.stderr}`).toBe(true);
  expect(decoded.frames, label).toBeGreaterThan(0);
};

test('a backup taken under load restores into a fresh DATA_DIR where every asset plays', async ({ playbackFixtures, playbackMedia }) => {
  test.skip(isCluster() || E2E_DATABASE_URL !== undefined, 'backs up the embedded default (SQLite and local disk)');
  test.setTimeout(180_000);
  const server = await startKeyframe({ label: 'backup-source' });
  servers.push(server);
  const token = await server.createToken();
  const api = new Api(server.baseUrl, token);
  await playbackFixtures.ensure('landscape720p');
  const inputUrl = playbackMedia.fileUrl(playbackFixtures.file('landscape720p'));
  const first = await Promise.all([createPlayableAsset(api, inputUrl), createPlayableAsset(api, inputUrl)]);
  for (const [index, asset] of first.entries()) await playsFirstSegment(server, asset.playbackId, `before-${index}`);

  // Load through the whole backup: new assets from the URL, and segments being encoded.
  let loading = true;
  const created: string[] = [];
  const load = (async () => {
    while (loading) {
      const response = await api.post('/video/v1/assets', { inputs: [{ url: inputUrl }], playback_policies: ['public'] });
      expect(response.status, response.text).toBe(201);
      created.push(response.json.data.id as string);
      await playsFirstSegment(server, first[created.length % 2]!.playbackId, `during-${created.length}`);
    }
  })();
  const backupDir = path.join(scratch, 'backup');
  const backup = (await server.cli(['backup', backupDir])) as Json;
  loading = false;
  await load;
  expect(backup, JSON.stringify(backup)).toMatchObject({ format: 1, assets: expect.any(Number), files: expect.any(Number) });
  expect(backup.assets).toBeGreaterThanOrEqual(2);

  // Into a fresh DATA_DIR, with the CLI, while the first server still runs on its own.
  const restoredDir = path.join(scratch, 'restored');
  const { stdout } = await execFileAsync(TSX_BIN, [CLI_ENTRY, 'restore', backupDir, '--json'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: restoredDir, DATABASE_URL: '' },
  });
  expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ assets: backup.assets, files: backup.files, dataDir: restoredDir });

  const restored = await startKeyframe({ label: 'backup-restored', dataDir: restoredDir });
  servers.push(restored);
  const restoredApi = new Api(restored.baseUrl, token);
  const listed = await restoredApi.get('/video/v1/assets?limit=100');
  expect(listed.status, listed.text).toBe(200);
  const assets = listed.json.data as Json[];
  expect(assets.length).toBe(backup.assets);
  for (const asset of first) expect(assets.map((listedAsset) => listedAsset.id)).toContain(asset.assetId);
  // Assets still being ingested at the backup finish on the restored server (the job came along).
  for (const asset of assets) {
    const settled = await restoredApi.waitForStatus(asset.id as string, ['ready', 'errored'], 60_000);
    expect(settled.status, JSON.stringify(settled)).toBe('ready');
    await playsFirstSegment(restored, settled.playback_ids[0].id as string, `restored-${asset.id as string}`);
  }
});
