import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { verifyAccessToken } from '../auth/verify-access-token';
import { getDb } from '../db/client';
import { migrateDatabase } from '../db/migrate-database';
import type { TestDatabase } from '../db/test-databases';
import { getEnv } from '../env';
import { claimNextJob } from '../jobs/queue';
import { createAccessToken } from './access-tokens/create-access-token';
import { revokeAccessToken } from './access-tokens/revoke-access-token';
import { createAsset } from './assets/create-asset';
import { deleteAsset } from './assets/delete-asset';
import { getAsset } from './assets/get-asset';
import { listAssets } from './assets/list-assets';
import { searchAssets } from './dashboard/search-assets';
import { createPlaybackId } from './playback-ids/create-playback-id';
import { lookupPlaybackId } from './playback-ids/lookup-playback-id';
import { cancelUpload } from './uploads/cancel-upload';
import { createUpload } from './uploads/create-upload';
import { getUpload } from './uploads/get-upload';

// A representative slice of the data layer — assets, playback IDs, the ingest job, uploads, access
// tokens — run through the real services against one provider. data-layer.sqlite.test.ts and
// data-layer.postgres.test.ts run it on each, with the same expectations. Services reach the
// database through getDb(), which follows DATABASE_URL, so each provider runs in its own test file
// (its own process) with the environment set before the first getEnv().

export const describeDataLayer = (name: string, makeDatabase: () => Promise<TestDatabase>, { skip = false } = {}) =>
  describe.skipIf(skip)(`data layer on ${name}`, () => {
    let database: TestDatabase | undefined;
    let dataDir = '';

    beforeAll(async () => {
      database = await makeDatabase();
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'keyframe-data-layer-'));
      process.env.DATA_DIR = dataDir;
      process.env.ALLOW_PRIVATE_INPUT_URLS = 'true';
      process.env.DATABASE_URL =
        database.database.provider === 'postgresql' ? database.database.url : `file:${database.database.filePath}`;
      expect(getEnv().database.provider).toBe(database.database.provider);
      const root = path.resolve(__dirname, '../..');
      await migrateDatabase(getEnv().database, {
        sqlite: path.join(root, 'prisma', 'migrations'),
        postgresql: path.join(root, 'prisma', 'postgres', 'migrations'),
      });
    });

    afterAll(async () => {
      await getDb().$disconnect();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('assets with playback IDs: create, read, page, search (ignoring case), queue the ingest, delete', async () => {
      const asset = await createAsset({
        body: { inputs: [{ url: 'http://127.0.0.1:9/first.mp4' }], playback_policies: ['public'], meta: { title: 'Big Buck Bunny' } },
      });
      expect(asset).toMatchObject({ status: 'preparing', metaJson: JSON.stringify({ title: 'Big Buck Bunny' }) });
      expect(asset.playbackIds).toEqual([expect.objectContaining({ policy: 'public' })]);
      const signed = await createPlaybackId({ assetId: asset.id, policy: 'signed' });
      expect(await lookupPlaybackId({ playbackId: signed.id })).toEqual({
        id: signed.id,
        policy: 'signed',
        object: { type: 'asset', id: asset.id },
      });
      expect((await getAsset({ assetId: asset.id })).playbackIds.map((id) => id.policy).sort()).toEqual(['public', 'signed']);

      const second = await createAsset({ body: { inputs: [{ url: 'http://127.0.0.1:9/second.mp4' }] } });
      const firstPage = await listAssets({ limit: 1 });
      expect(firstPage.assets.map((row) => row.id)).toEqual([second.id]);
      const secondPage = await listAssets({ limit: 1, cursor: firstPage.nextCursor });
      expect(secondPage.assets.map((row) => row.id)).toEqual([asset.id]);
      expect(secondPage.nextCursor).toBeUndefined();

      const found = await searchAssets({ search: 'big BUCK', page: 1, limit: 10 });
      expect(found).toMatchObject({ total: 1, preparing: 1 });
      expect(found.assets.map((row) => row.id)).toEqual([asset.id]);

      // One ingest job per asset (deduplicated), claimed once, oldest first.
      const firstJob = await claimNextJob('worker-1');
      expect(firstJob).toMatchObject({ name: 'ingest-asset-job', attempts: 1, payloadJson: JSON.stringify({ assetId: asset.id }) });
      expect(await claimNextJob('worker-1')).toMatchObject({ payloadJson: JSON.stringify({ assetId: second.id }) });
      expect(await claimNextJob('worker-1')).toBeNull();

      await getDb().asset.update({ where: { id: asset.id }, data: { sourceBytes: 12_345_678_901n, durationSeconds: 12.5 } });
      expect(await getDb().asset.findUniqueOrThrow({ where: { id: asset.id } })).toMatchObject({
        sourceBytes: 12_345_678_901n,
        durationSeconds: 12.5,
      });

      await deleteAsset({ assetId: asset.id });
      await expect(getAsset({ assetId: asset.id })).rejects.toMatchObject({ type: 'not_found' });
      expect(await getDb().playbackId.count({ where: { assetId: asset.id } })).toBe(0);
    });

    test('direct uploads: create, read, cancel', async () => {
      const upload = await createUpload({ body: { cors_origin: 'https://app.example', new_asset_settings: { playback_policies: ['signed'] } } });
      expect(upload).toMatchObject({ status: 'waiting', corsOrigin: 'https://app.example', totalBytes: null });
      expect(upload.expiresAt.getTime() - upload.createdAt.getTime()).toBe(3_600_000);
      expect(await getUpload({ uploadId: upload.id })).toMatchObject({ id: upload.id, status: 'waiting' });
      expect(await cancelUpload({ uploadId: upload.id })).toMatchObject({ status: 'cancelled' });
      expect(await getUpload({ uploadId: upload.id })).toMatchObject({ status: 'cancelled' });
    });

    test('access tokens: the secret verifies until the token is revoked', async () => {
      const token = await createAccessToken({ name: 'ci', permission: 'read_only' });
      expect(await verifyAccessToken(token.id, token.secret)).toMatchObject({ id: token.id, permission: 'read_only' });
      expect(await verifyAccessToken(token.id, `${token.secret}x`)).toBeNull();
      expect(await revokeAccessToken({ id: token.id })).toBe('revoked');
      expect(await revokeAccessToken({ id: token.id })).toBe('already_revoked');
      expect(await verifyAccessToken(token.id, token.secret)).toBeNull();
    });
  });
