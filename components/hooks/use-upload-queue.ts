'use client';

import * as UpChunk from '@mux/upchunk';
import { useCallback, useEffect, useRef, useState } from 'react';
import { apiFetch, errorMessages } from './api-fetch';
import type { NewAssetSettings, UploadJson } from './dashboard-types';

// Per-file direct uploads: a dashboard route creates the upload (CORS opened for this origin),
// @mux/upchunk sends the file in chunks to its URL, then the upload is polled until it names the
// asset it created.

export type UploadItemStatus = 'creating' | 'uploading' | 'paused' | 'finishing' | 'asset_created' | 'cancelled' | 'errored';

export type UploadItem = {
  key: string;
  name: string;
  size: number;
  status: UploadItemStatus;
  percent: number;
  bytesPerSecond: number | undefined;
  uploadId?: string;
  assetId?: string;
  error?: string;
};

const CHUNK_SIZE_KB = 5 * 1024;
const ASSET_POLL_MS = 1000;
// Weight of the newest speed sample; smooths the estimate without hiding real changes for long.
const SPEED_SMOOTHING = 0.3;

export const remainingSeconds = (item: UploadItem): number | undefined =>
  item.bytesPerSecond ? ((100 - item.percent) / 100) * item.size / item.bytesPerSecond : undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// UpChunk pauses between chunks. Resuming while a chunk is still in flight would start a second
// send loop next to the first (which then reports success for a file that is not complete), so a
// resume requested mid-chunk waits until that chunk has settled and the first loop has stopped.
type TrackedUploader = { upchunk: UpChunk.UpChunk; chunkInFlight: boolean; resumeWhenSettled: boolean };

const trackUploader = (upchunk: UpChunk.UpChunk): TrackedUploader => {
  const tracked: TrackedUploader = { upchunk, chunkInFlight: false, resumeWhenSettled: false };
  const settled = () => {
    tracked.chunkInFlight = false;
    if (!tracked.resumeWhenSettled) return;
    tracked.resumeWhenSettled = false;
    // After the current loop has seen `paused` and returned (it does so right after this event).
    setTimeout(() => upchunk.resume(), 0);
  };
  upchunk.on('attempt', () => (tracked.chunkInFlight = true));
  upchunk.on('chunkSuccess', settled);
  upchunk.on('attemptFailure', settled);
  return tracked;
};

export const useUploadQueue = () => {
  const [items, setItems] = useState<UploadItem[]>([]);
  const uploaders = useRef(new Map<string, TrackedUploader>());
  const unmounted = useRef(false);

  useEffect(() => {
    const running = uploaders.current;
    unmounted.current = false;
    return () => {
      unmounted.current = true;
      for (const uploader of running.values()) uploader.upchunk.abort();
    };
  }, []);

  const update = useCallback((key: string, patch: Partial<UploadItem>) => {
    setItems((current) => current.map((item) => (item.key === key ? { ...item, ...patch } : item)));
  }, []);

  const waitForAsset = useCallback(
    async (key: string, uploadId: string) => {
      while (!unmounted.current) {
        const { data } = await apiFetch<{ data: UploadJson }>(`/api/dashboard/uploads/${uploadId}`);
        if (data.asset_id) return update(key, { status: 'asset_created', assetId: data.asset_id });
        if (data.status !== 'waiting') return update(key, { status: 'errored', error: data.error?.message ?? `Upload ${data.status}` });
        await sleep(ASSET_POLL_MS);
      }
    },
    [update],
  );

  const startOne = useCallback(
    async (key: string, file: File, settings: NewAssetSettings) => {
      let upload: UploadJson;
      try {
        upload = (await apiFetch<{ data: UploadJson }>('/api/dashboard/uploads', { method: 'POST', body: settings })).data;
      } catch (error) {
        return update(key, { status: 'errored', error: errorMessages(error).join(' ') });
      }
      if (!upload.url) return update(key, { status: 'errored', error: 'The upload has no URL' });
      update(key, { status: 'uploading', uploadId: upload.id });
      const uploader = UpChunk.createUpload({ endpoint: upload.url, file, chunkSize: CHUNK_SIZE_KB });
      uploaders.current.set(key, trackUploader(uploader));
      let last = { at: performance.now(), bytes: 0 };
      let speed: number | undefined;
      uploader.on('progress', (event) => {
        const percent = Number(event.detail) || 0;
        const bytes = (percent / 100) * file.size;
        const now = performance.now();
        if (now - last.at > 200) {
          const sample = (bytes - last.bytes) / ((now - last.at) / 1000);
          speed = speed === undefined ? sample : speed * (1 - SPEED_SMOOTHING) + sample * SPEED_SMOOTHING;
          last = { at: now, bytes };
        }
        update(key, { percent, bytesPerSecond: speed });
      });
      uploader.on('error', (event) => {
        const detail = event.detail as { message?: string } | undefined;
        update(key, { status: 'errored', error: detail?.message ?? 'Upload failed' });
      });
      uploader.on('success', () => {
        uploaders.current.delete(key);
        update(key, { status: 'finishing', percent: 100 });
        void waitForAsset(key, upload.id).catch((error: unknown) => update(key, { status: 'errored', error: errorMessages(error).join(' ') }));
      });
    },
    [update, waitForAsset],
  );

  const addFiles = useCallback(
    (files: File[], settings: NewAssetSettings) => {
      for (const file of files) {
        const key = `${file.name}-${file.size}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
        setItems((current) => [
          { key, name: file.name, size: file.size, status: 'creating', percent: 0, bytesPerSecond: undefined },
          ...current,
        ]);
        void startOne(key, file, settings);
      }
    },
    [startOne],
  );

  const pause = useCallback(
    (key: string) => {
      const uploader = uploaders.current.get(key);
      if (uploader) uploader.resumeWhenSettled = false;
      uploader?.upchunk.pause();
      update(key, { status: 'paused', bytesPerSecond: undefined });
    },
    [update],
  );

  const resume = useCallback(
    (key: string) => {
      const uploader = uploaders.current.get(key);
      if (uploader?.chunkInFlight) uploader.resumeWhenSettled = true;
      else uploader?.upchunk.resume();
      update(key, { status: 'uploading' });
    },
    [update],
  );

  const cancel = useCallback(
    async (item: UploadItem) => {
      uploaders.current.get(item.key)?.upchunk.abort();
      uploaders.current.delete(item.key);
      update(item.key, { status: 'cancelled', bytesPerSecond: undefined });
      if (item.uploadId) await apiFetch(`/api/dashboard/uploads/${item.uploadId}/cancel`, { method: 'PUT' });
    },
    [update],
  );

  return { items, addFiles, pause, resume, cancel };
};
