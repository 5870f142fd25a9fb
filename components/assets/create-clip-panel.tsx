'use client';

import Link from 'next/link';
import { useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { AssetJson } from '../hooks/dashboard-types';
import { useCreateClip } from '../hooks/use-asset-mutations';
import { Button } from '../ui/button';
import { ErrorList, TextField } from '../ui/field';

const seconds = (value: number) => Math.round(value * 1000) / 1000;

// "Create clip": start and end come from the preview player's position (or are typed), and the
// clip is a new asset cut frame-accurately from this asset's source.
export function CreateClipPanel({ asset, playerTime }: { asset: AssetJson; playerTime: number }) {
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [created, setCreated] = useState<AssetJson>();
  const createClip = useCreateClip(asset.id);
  const startTime = Number(start);
  const endTime = Number(end);
  const problem =
    start === '' || end === '' ? undefined : endTime <= startTime ? 'The end must be after the start.' : undefined;

  return (
    <section aria-labelledby="clip-heading" className="space-y-3">
      <h2 id="clip-heading" className="text-lg font-semibold">
        Create a clip
      </h2>
      <div className="grid grid-cols-2 gap-3">
        <PlayerTimeField label="Start (s)" buttonLabel="Start at player time" value={start} onChange={setStart} playerTime={playerTime} />
        <PlayerTimeField label="End (s)" buttonLabel="End at player time" value={end} onChange={setEnd} playerTime={playerTime} />
      </div>
      {problem && <ErrorList messages={[problem]} />}
      {createClip.isError && <ErrorList messages={errorMessages(createClip.error)} />}
      <Button
        variant="secondary"
        disabled={createClip.isPending || start === '' || end === '' || problem !== undefined}
        onClick={() => createClip.mutate({ startTime, endTime }, { onSuccess: setCreated })}
      >
        Create clip
      </Button>
      {created && (
        <p className="text-sm" role="status">
          Clip created:{' '}
          <Link className="text-indigo-700 underline" href={`/assets/${created.id}`}>
            {created.id}
          </Link>
        </p>
      )}
    </section>
  );
}

// A time in seconds, typed or taken from where the preview player is.
function PlayerTimeField({
  label,
  buttonLabel,
  value,
  onChange,
  playerTime,
}: {
  label: string;
  buttonLabel: string;
  value: string;
  onChange: (value: string) => void;
  playerTime: number;
}) {
  return (
    <div className="space-y-1">
      <TextField label={label} type="number" min={0} step={0.001} value={value} onChange={(event) => onChange(event.target.value)} />
      <Button variant="ghost" className="px-2 py-1 text-xs" onClick={() => onChange(String(seconds(playerTime)))}>
        {buttonLabel}
      </Button>
    </div>
  );
}
