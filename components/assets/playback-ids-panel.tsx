'use client';

import { useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { AssetJson, PlaybackPolicy } from '../hooks/dashboard-types';
import { useCreatePlaybackId } from '../hooks/use-create-playback-id';
import { useDeletePlaybackId } from '../hooks/use-delete-playback-id';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { CopyButton } from '../ui/copy-button';
import { useToast } from '../ui/toast';

export const streamUrl = (origin: string, playbackId: string) => `${origin}/${playbackId}.m3u8`;

export function PlaybackIdsPanel({ asset, origin }: { asset: AssetJson; origin: string }) {
  const [policy, setPolicy] = useState<PlaybackPolicy>('public');
  const [deleting, setDeleting] = useState<string>();
  const createPlaybackId = useCreatePlaybackId(asset.id);
  const deletePlaybackId = useDeletePlaybackId(asset.id);
  const toast = useToast();
  const playbackIds = asset.playback_ids ?? [];

  return (
    <section aria-labelledby="playback-ids-heading" className="space-y-3">
      <h2 id="playback-ids-heading" className="text-lg font-semibold">
        Playback IDs
      </h2>
      {playbackIds.length === 0 && <p className="text-sm text-zinc-600">No playback IDs: add one to stream this asset.</p>}
      <ul className="space-y-2">
        {playbackIds.map((playbackId) => (
          <li key={playbackId.id} className="rounded-md border border-zinc-200 bg-white p-3 text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <span className="min-w-0 font-mono break-all">{playbackId.id}</span>
              <span className="rounded bg-zinc-100 px-1.5 text-xs">{playbackId.policy}</span>
              <Button variant="ghost" className="ml-auto px-2 py-1 text-xs text-red-700" onClick={() => setDeleting(playbackId.id)}>
                Delete
              </Button>
            </div>
            <div className="mt-2 flex items-center gap-2">
              <code className="min-w-0 flex-1 truncate text-xs text-zinc-600" data-testid="stream-url">
                {streamUrl(origin, playbackId.id)}
              </code>
              <CopyButton value={streamUrl(origin, playbackId.id)} label="Copy stream URL" />
            </div>
            {playbackId.policy === 'signed' && (
              <p className="mt-1 text-xs text-zinc-500">Signed: append ?token= with a JWT made from a signing key.</p>
            )}
          </li>
        ))}
      </ul>
      <div className="flex items-end gap-2">
        <label className="text-sm font-medium">
          New playback ID policy
          <select
            className="mt-1 block rounded-md border border-zinc-300 px-2 py-2 text-sm focus-visible:outline-2 focus-visible:outline-indigo-600"
            value={policy}
            onChange={(event) => setPolicy(event.target.value as PlaybackPolicy)}
          >
            <option value="public">public</option>
            <option value="signed">signed</option>
          </select>
        </label>
        <Button
          variant="secondary"
          disabled={createPlaybackId.isPending}
          onClick={() =>
            createPlaybackId.mutate(policy, {
              onSuccess: () => toast('success', `Added a ${policy} playback ID.`),
              onError: (error) => toast('error', errorMessages(error).join(' ')),
            })
          }
        >
          Add playback ID
        </Button>
      </div>
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete playback ID?"
        message={`Players using ${deleting ?? ''} will stop working. This cannot be undone.`}
        confirmLabel="Delete playback ID"
        busy={deletePlaybackId.isPending}
        onCancel={() => setDeleting(undefined)}
        onConfirm={() =>
          deleting &&
          deletePlaybackId.mutate(deleting, {
            onSuccess: () => {
              toast('success', 'Playback ID deleted.');
              setDeleting(undefined);
            },
            onError: (error) => toast('error', errorMessages(error).join(' ')),
          })
        }
      />
    </section>
  );
}
