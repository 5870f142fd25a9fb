'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import { useAsset } from '../hooks/use-asset';
import { useDeleteAsset } from '../hooks/use-delete-asset';
import { PreviewPlayer } from '../player/preview-player';
import { Button, FOCUS_RING } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { ErrorList } from '../ui/field';
import { StatusBadge } from '../ui/status-badge';
import { useToast } from '../ui/toast';
import { AssetAnalytics } from './asset-analytics';
import { assetErrorText } from './asset-error-text';
import { AssetFields } from './asset-fields';
import { AssetInputs } from './asset-inputs';
import { assetTitle } from './asset-title';
import { AssetTracks } from './asset-tracks';
import { CreateClipPanel } from './create-clip-panel';
import { EmbedCodePanel } from './embed-code-panel';
import { MasterAccessPanel } from './master-access-panel';
import { PlaybackIdsPanel, streamUrl } from './playback-ids-panel';
import { QualityReportPanel } from './quality-report-panel';
import { RenditionLadder } from './rendition-ladder';
import { StaticRenditionsPanel } from './static-renditions-panel';
import { isTrackRow } from './track-text';

export function AssetDetail({ assetId }: { assetId: string }) {
  const asset = useAsset(assetId);
  const deleteAsset = useDeleteAsset();
  const [confirming, setConfirming] = useState(false);
  const [playerTime, setPlayerTime] = useState(0);
  const router = useRouter();
  const toast = useToast();

  if (asset.isPending) return <p className="text-sm text-zinc-500">Loading asset…</p>;
  if (asset.isError) {
    return (
      <div className="space-y-3">
        <ErrorList messages={errorMessages(asset.error)} />
        <Link href="/assets" className={`text-sm text-indigo-700 underline ${FOCUS_RING}`}>
          Back to assets
        </Link>
      </div>
    );
  }
  const data = asset.data;
  const origin = window.location.origin;
  const publicId = data.playback_ids?.find((playbackId) => playbackId.policy === 'public')?.id;
  const failure = assetErrorText(data);
  // The playlist lists the ready audio and subtitle tracks: the player starts again when they change.
  const playableTracks = (data.tracks ?? [])
    .filter(isTrackRow)
    .filter((track) => track.status === 'ready')
    .map((track) => track.id)
    .join(' ');

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3">
        <Link href="/assets" className={`text-sm text-indigo-700 hover:underline ${FOCUS_RING}`}>
          ← Assets
        </Link>
        <h1 className="min-w-0 flex-1 truncate text-2xl font-semibold">{assetTitle(data)}</h1>
        <StatusBadge status={data.status} />
        <Button variant="danger" onClick={() => setConfirming(true)}>
          Delete asset
        </Button>
      </div>
      {data.live_stream_id && (
        <p className="text-sm text-zinc-600">
          Recording of live stream{' '}
          <Link href={`/live-streams/${data.live_stream_id}`} className={`font-mono text-indigo-700 underline ${FOCUS_RING}`}>
            {data.live_stream_id}
          </Link>
          {data.is_live && ' · still broadcasting'}
        </p>
      )}
      {failure && (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-800">
          <p className="font-medium">{failure.summary}</p>
          <ul className="mt-1 list-disc pl-5">
            {failure.details.map((detail) => (
              <li key={detail}>{detail}</li>
            ))}
          </ul>
        </div>
      )}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="space-y-6">
          {data.status === 'ready' && publicId ? (
            <PreviewPlayer
              key={playableTracks}
              src={streamUrl(origin, publicId)}
              onTimeUpdate={setPlayerTime}
              analytics={{ videoId: data.id, videoTitle: assetTitle(data), streamType: 'on-demand' }}
            />
          ) : (
            <div className="flex aspect-video w-full items-center justify-center rounded-lg bg-zinc-200 p-4 text-center text-sm text-zinc-600">
              {data.status === 'preparing'
                ? 'The preview appears when the asset is ready.'
                : data.status === 'errored'
                  ? 'This asset cannot be played.'
                  : 'Add a public playback ID to preview this asset here.'}
            </div>
          )}
          {data.status === 'ready' && <AssetAnalytics assetId={data.id} />}
          {data.status === 'ready' && <CreateClipPanel asset={data} playerTime={playerTime} />}
          <AssetFields asset={data} />
          <AssetInputs assetId={data.id} />
        </div>
        <div className="space-y-6">
          <PlaybackIdsPanel asset={data} origin={origin} />
          {data.status === 'ready' && <EmbedCodePanel asset={data} />}
          <StaticRenditionsPanel asset={data} origin={origin} />
          <MasterAccessPanel asset={data} />
          <AssetTracks asset={data} />
          <RenditionLadder assetId={data.id} ready={data.status === 'ready'} />
          <QualityReportPanel assetId={data.id} ready={data.status === 'ready'} />
        </div>
      </div>
      <details className="rounded-md border border-zinc-200 bg-white">
        <summary className={`cursor-pointer px-3 py-2 text-sm font-medium ${FOCUS_RING}`}>API JSON</summary>
        <pre className="relative overflow-x-auto border-t border-zinc-200 p-3 text-xs">{JSON.stringify(data, null, 2)}</pre>
      </details>
      <ConfirmDialog
        open={confirming}
        title="Delete this asset?"
        message="The asset, its playback IDs and its files are deleted. This cannot be undone."
        confirmLabel="Delete asset"
        busy={deleteAsset.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          deleteAsset.mutate(data.id, {
            onSuccess: () => {
              toast('success', 'Asset deleted.');
              router.push('/assets');
            },
            onError: (error) => toast('error', errorMessages(error).join(' ')),
          })
        }
      />
    </div>
  );
}
