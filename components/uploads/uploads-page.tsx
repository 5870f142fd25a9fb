'use client';

import { useEffect, useRef, useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { NewAssetSettings } from '../hooks/dashboard-types';
import { useUploadQueue } from '../hooks/use-upload-queue';
import { AssetSettingsFields, DEFAULT_ASSET_SETTINGS } from '../assets/asset-settings-fields';
import { Button } from '../ui/button';
import { useToast } from '../ui/toast';
import { UploadRow } from './upload-row';

const hasFiles = (event: DragEvent) => Array.from(event.dataTransfer?.types ?? []).includes('Files');

export function UploadsPage() {
  const [settings, setSettings] = useState<NewAssetSettings>(DEFAULT_ASSET_SETTINGS);
  const [dragging, setDragging] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const queue = useUploadQueue();
  const toast = useToast();
  // The window listeners read the latest settings without being re-attached on every change.
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  const addFilesRef = useRef(queue.addFiles);
  addFilesRef.current = queue.addFiles;

  // Files can be dropped anywhere on the page, not only on the drop area.
  useEffect(() => {
    const over = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      setDragging(true);
    };
    const leave = (event: DragEvent) => {
      if (event.relatedTarget === null) setDragging(false);
    };
    const drop = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      setDragging(false);
      const files = Array.from(event.dataTransfer?.files ?? []);
      if (files.length > 0) addFilesRef.current(files, settingsRef.current);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, []);

  return (
    <div className="space-y-5">
      <h1 className="text-2xl font-semibold">Uploads</h1>
      <section aria-labelledby="upload-settings-heading" className="space-y-2">
        <h2 id="upload-settings-heading" className="text-sm font-semibold text-zinc-700">
          Settings for the next files
        </h2>
        <AssetSettingsFields value={settings} onChange={setSettings} />
      </section>
      <div
        data-testid="upload-drop-area"
        className={`flex flex-col items-center justify-center gap-3 rounded-lg border-2 border-dashed p-10 text-center ${dragging ? 'border-indigo-500 bg-indigo-50' : 'border-zinc-300 bg-white'}`}
      >
        <p className="text-sm text-zinc-700">Drop video files anywhere on this page, or</p>
        <Button onClick={() => inputRef.current?.click()}>Choose files</Button>
        <input
          ref={inputRef}
          type="file"
          multiple
          accept="video/*,audio/*"
          className="sr-only"
          aria-label="Choose video files to upload"
          onChange={(event) => {
            const files = Array.from(event.target.files ?? []);
            if (files.length > 0) queue.addFiles(files, settings);
            event.target.value = '';
          }}
        />
      </div>
      {queue.items.length === 0 ? (
        <p className="text-sm text-zinc-600">No uploads in this session yet. Each file becomes an asset once its upload completes.</p>
      ) : (
        <ul className="space-y-2" aria-label="Uploads">
          {queue.items.map((item) => (
            <UploadRow
              key={item.key}
              item={item}
              onPause={() => queue.pause(item.key)}
              onResume={() => queue.resume(item.key)}
              onCancel={() =>
                queue
                  .cancel(item)
                  .then(() => toast('success', `Cancelled ${item.name}.`))
                  .catch((error: unknown) => toast('error', errorMessages(error).join(' ')))
              }
            />
          ))}
        </ul>
      )}
    </div>
  );
}
