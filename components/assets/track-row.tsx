'use client';

import { useId, useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { AssetTrackJson, TrackJson } from '../hooks/dashboard-types';
import { trackVttUrl, useTrackTranscript } from '../hooks/use-tracks';
import { Button, FOCUS_RING } from '../ui/button';
import { ErrorList } from '../ui/field';
import { StatusBadge } from '../ui/status-badge';
import { canDeleteTrack, channelsLabel, isTrackRow, languageLabel, plainSentence, trackFailureText } from './track-text';

const seconds = (duration: number | undefined) => (duration === undefined ? undefined : `${duration.toFixed(2)} s`);

function Marker({ children }: { children: string }) {
  return <span className="rounded border border-zinc-300 px-1.5 py-0.5 text-xs text-zinc-700">{children}</span>;
}

function Details({ items }: { items: Array<string | undefined> }) {
  const shown = items.filter((item): item is string => item !== undefined);
  return shown.length > 0 ? <p className="text-xs text-zinc-600">{shown.join(' · ')}</p> : null;
}

// One track of the asset: what it is, its status (with the reason when it failed) and what can be
// done with it.
export function TrackRow({
  assetId,
  track,
  onEdit,
  onDelete,
}: {
  assetId: string;
  track: AssetTrackJson;
  onEdit: (track: TrackJson) => void;
  onDelete: (track: TrackJson) => void;
}) {
  if (track.type === 'video') {
    return (
      <li className="space-y-1 rounded-md border border-zinc-200 bg-white p-3 text-sm" data-track-type="video">
        <span className="font-medium">Video</span>
        <Details items={[`${track.max_width}×${track.max_height} at ${track.max_frame_rate} fps`, seconds(track.duration)]} />
      </li>
    );
  }
  if (!isTrackRow(track)) {
    return (
      <li className="space-y-1 rounded-md border border-zinc-200 bg-white p-3 text-sm" data-track-type="audio">
        <span className="font-medium">Audio</span> {track.primary && <Marker>Primary</Marker>}
        <Details items={[languageLabel(track.language_code), channelsLabel(track.max_channels, track.max_channel_layout), seconds(track.duration)]} />
      </li>
    );
  }
  const failure = trackFailureText(track);
  return (
    <li className="space-y-2 rounded-md border border-zinc-200 bg-white p-3 text-sm" data-track-type={track.type} data-track-id={track.id}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">{track.type === 'audio' ? 'Audio' : 'Subtitles'}</span>
        <span className="min-w-0 font-medium break-words">{track.name}</span>
        <StatusBadge status={track.status} />
        {track.type === 'audio' && track.primary && <Marker>Primary</Marker>}
        {track.type === 'text' && track.closed_captions && <Marker>Closed captions</Marker>}
        {track.type === 'text' && track.text_source === 'generated_vod' && <Marker>Generated</Marker>}
      </div>
      <Details
        items={
          track.type === 'audio'
            ? [languageLabel(track.language_code), channelsLabel(track.max_channels, track.max_channel_layout), seconds(track.duration)]
            : [languageLabel(track.language_code)]
        }
      />
      {track.status === 'preparing' && (
        <p className="text-xs text-zinc-600">
          {track.type === 'text' && track.text_source === 'generated_vod' ? 'Generating captions from the audio…' : 'Being prepared…'}
        </p>
      )}
      {failure && (
        <div className="rounded-md border border-red-200 bg-red-50 p-2 text-xs text-red-800" data-testid="track-error">
          <p className="font-medium">{failure.summary}</p>
          {failure.details.length > 0 && (
            <ul className="mt-1 list-disc pl-5 break-words">
              {failure.details.map((detail) => (
                <li key={detail}>{detail}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {track.type === 'text' && track.status === 'ready' && <TextTrackText assetId={assetId} track={track} />}
      <div className="flex flex-wrap gap-1">
        <Button variant="ghost" className="px-2 py-1 text-xs" onClick={() => onEdit(track)}>
          Edit<span className="sr-only"> {track.name}</span>
        </Button>
        {canDeleteTrack(track) && (
          <Button variant="ghost" className="px-2 py-1 text-xs text-red-700" onClick={() => onDelete(track)}>
            Delete<span className="sr-only"> {track.name}</span>
          </Button>
        )}
      </div>
      <p className="font-mono text-xs break-all text-zinc-500">{track.id}</p>
    </li>
  );
}

// A ready text track: its transcript shown on demand, and its WebVTT file as a download.
function TextTrackText({ assetId, track }: { assetId: string; track: TrackJson }) {
  const [open, setOpen] = useState(false);
  const transcript = useTrackTranscript(assetId, track.id, open);
  const transcriptId = useId();
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="secondary" className="px-2 py-1 text-xs" aria-expanded={open} aria-controls={transcriptId} onClick={() => setOpen(!open)}>
          {open ? 'Hide transcript' : 'Show transcript'}
          <span className="sr-only"> of {track.name}</span>
        </Button>
        <a className={`text-xs text-indigo-700 underline ${FOCUS_RING}`} href={trackVttUrl(assetId, track.id)} download>
          Download .vtt<span className="sr-only"> of {track.name}</span>
        </a>
      </div>
      {open && (
        <div id={transcriptId}>
          {transcript.isPending && <p className="text-xs text-zinc-600">Loading the transcript…</p>}
          {transcript.isError && <ErrorList messages={errorMessages(transcript.error).map(plainSentence)} />}
          {transcript.data !== undefined && (
            <pre
              tabIndex={0}
              aria-label={`Transcript of ${track.name}`}
              className={`max-h-64 overflow-y-auto rounded-md bg-zinc-50 p-2 font-sans text-xs whitespace-pre-wrap ${FOCUS_RING}`}
            >
              {transcript.data || '(The track has no text.)'}
            </pre>
          )}
        </div>
      )}
    </div>
  );
}
