'use client';

import { useState, type FormEvent } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { NewAssetSettings } from '../hooks/dashboard-types';
import { useCreateAsset } from '../hooks/use-create-asset';
import { Button } from '../ui/button';
import { Dialog } from '../ui/dialog';
import { ErrorList, TextField } from '../ui/field';
import { useToast } from '../ui/toast';
import { AssetSettingsFields, DEFAULT_ASSET_SETTINGS } from './asset-settings-fields';

export function CreateAssetDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [url, setUrl] = useState('');
  const [title, setTitle] = useState('');
  const [settings, setSettings] = useState<NewAssetSettings>(DEFAULT_ASSET_SETTINGS);
  const createAsset = useCreateAsset();
  const toast = useToast();

  const close = () => {
    createAsset.reset();
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    createAsset.mutate(
      { url: url.trim(), title: title.trim() || undefined, ...settings },
      {
        onSuccess: (asset) => {
          toast('success', `Asset ${asset.id} created; it is preparing.`);
          setUrl('');
          setTitle('');
          close();
        },
      },
    );
  };

  return (
    <Dialog open={open} onClose={close} title="Create an asset from a URL">
      <form onSubmit={submit} className="space-y-4" noValidate>
        <TextField
          label="Video URL"
          type="url"
          placeholder="https://example.com/video.mp4"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          required
          autoFocus
        />
        <TextField label="Title (optional)" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={512} />
        <AssetSettingsFields value={settings} onChange={setSettings} />
        {createAsset.isError && <ErrorList messages={errorMessages(createAsset.error)} />}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={close}>
            Cancel
          </Button>
          <Button type="submit" disabled={createAsset.isPending}>
            {createAsset.isPending ? 'Creating…' : 'Create asset'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
