'use client';

import { useState } from 'react';
import { compareTrackKinds } from '@/lib/schemas/track';
import { errorMessages } from '../hooks/api-fetch';
import type { AssetJson, AssetTrackJson, TrackJson } from '../hooks/dashboard-types';
import { useDeleteTrack } from '../hooks/use-tracks';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { useToast } from '../ui/toast';
import { AddSubtitlesDialog, EditTrackDialog, GenerateCaptionsDialog } from './track-dialogs';
import { TrackRow } from './track-row';
import { isTrackRow, plainSentence } from './track-text';

type OpenDialog = 'add-subtitles' | 'generate-captions' | undefined;

// Video, then audio (the primary first), then subtitles; within each, the API's order (sort is stable).
const displayOrder = (tracks: AssetTrackJson[]): AssetTrackJson[] => [...tracks].sort(compareTrackKinds);

// Every track of the asset (video, audio, subtitles) with its status, and the tracks API from the
// page: add subtitles from a URL, generate captions from an audio track, edit, delete. The asset
// query polls while a track is preparing.
export function AssetTracks({ asset }: { asset: AssetJson }) {
  const [dialog, setDialog] = useState<OpenDialog>();
  const [editing, setEditing] = useState<TrackJson>();
  const [deleting, setDeleting] = useState<TrackJson>();
  const remove = useDeleteTrack(asset.id);
  const toast = useToast();
  const tracks = displayOrder(asset.tracks ?? []);
  const readyAudio = tracks.filter(isTrackRow).filter((track) => track.type === 'audio' && track.status === 'ready');
  const basic = asset.video_quality === 'basic';

  return (
    <section aria-labelledby="tracks-heading" className="space-y-3">
      <h2 id="tracks-heading" className="text-lg font-semibold">
        Tracks
      </h2>
      {tracks.length === 0 ? (
        <p className="text-sm text-zinc-600">{asset.status === 'preparing' ? 'Tracks appear once the input is probed.' : 'No tracks.'}</p>
      ) : (
        <ul className="space-y-2" data-testid="asset-tracks">
          {tracks.map((track) => (
            <TrackRow key={track.id} assetId={asset.id} track={track} onEdit={setEditing} onDelete={setDeleting} />
          ))}
        </ul>
      )}
      {asset.status === 'ready' ? (
        <div className="space-y-2">
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" onClick={() => setDialog('add-subtitles')}>
              Add subtitles
            </Button>
            {!basic && readyAudio.length > 0 && (
              <Button variant="secondary" onClick={() => setDialog('generate-captions')}>
                Generate captions
              </Button>
            )}
          </div>
          {basic && <p className="text-sm text-zinc-600">Generated captions need video quality “plus”; this asset is “basic”.</p>}
          {!basic && readyAudio.length === 0 && <p className="text-sm text-zinc-600">Captions are generated from an audio track; this asset has none ready.</p>}
        </div>
      ) : (
        asset.status === 'preparing' && <p className="text-sm text-zinc-600">Subtitles can be added once the asset is ready.</p>
      )}
      <AddSubtitlesDialog assetId={asset.id} open={dialog === 'add-subtitles'} onClose={() => setDialog(undefined)} />
      <GenerateCaptionsDialog assetId={asset.id} audioTracks={readyAudio} open={dialog === 'generate-captions'} onClose={() => setDialog(undefined)} />
      <EditTrackDialog assetId={asset.id} track={editing} onClose={() => setEditing(undefined)} />
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete this track?"
        message={`“${deleting?.name ?? ''}” stops being offered to players and its files are deleted. This cannot be undone.`}
        confirmLabel="Delete track"
        busy={remove.isPending}
        onCancel={() => setDeleting(undefined)}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => {
              toast('success', `Track “${deleting.name}” deleted.`);
              setDeleting(undefined);
            },
            onError: (error) => toast('error', errorMessages(error).map(plainSentence).join(' ')),
          })
        }
      />
    </section>
  );
}
