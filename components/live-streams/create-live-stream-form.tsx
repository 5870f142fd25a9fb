'use client';

import { useState, type FormEvent } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { LatencyMode, PlaybackPolicy } from '../hooks/dashboard-types';
import { useCreateLiveStream } from '../hooks/use-live-streams';
import { Button, FOCUS_RING } from '../ui/button';
import { ErrorList, SelectField, TextField } from '../ui/field';
import { useToast } from '../ui/toast';

// Mux's default when reconnect_window is not sent.
const defaultReconnectWindow = (latencyMode: LatencyMode) => (latencyMode === 'standard' ? 60 : 0);

export function CreateLiveStreamForm() {
  const [title, setTitle] = useState('');
  const [latencyMode, setLatencyMode] = useState<LatencyMode>('standard');
  const [reconnectWindow, setReconnectWindow] = useState('');
  const [policy, setPolicy] = useState<PlaybackPolicy>('public');
  const [record, setRecord] = useState(true);
  const [captions, setCaptions] = useState(false);
  const createLiveStream = useCreateLiveStream();
  const toast = useToast();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    createLiveStream.mutate(
      {
        title: title.trim() || undefined,
        latency_mode: latencyMode,
        // An unparsable entry is sent as it is, so the API's message explains it.
        reconnect_window: reconnectWindow.trim() === '' ? undefined : Number(reconnectWindow),
        playback_policy: policy,
        record,
        captions,
      },
      {
        onSuccess: (stream) => {
          toast('success', `Live stream ${stream.id} created; it is idle until a publisher connects.`);
          setTitle('');
          setReconnectWindow('');
        },
      },
    );
  };

  return (
    <form onSubmit={submit} className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4" noValidate aria-label="Create a live stream">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[minmax(0,1fr)_10rem_12rem_10rem]">
        <TextField label="Title (optional)" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={512} />
        <SelectField label="Latency mode" value={latencyMode} onChange={(event) => setLatencyMode(event.target.value as LatencyMode)}>
          <option value="standard">standard</option>
          <option value="reduced">reduced</option>
          <option value="low">low</option>
        </SelectField>
        <TextField
          label="Reconnect window (s)"
          type="number"
          inputMode="numeric"
          min={0}
          max={1800}
          placeholder={`${defaultReconnectWindow(latencyMode)} (default)`}
          value={reconnectWindow}
          onChange={(event) => setReconnectWindow(event.target.value)}
        />
        <SelectField label="Playback policy" value={policy} onChange={(event) => setPolicy(event.target.value as PlaybackPolicy)}>
          <option value="public">public</option>
          <option value="signed">signed</option>
        </SelectField>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="space-y-2 text-sm">
          <Checkbox label="Record each broadcast to an asset" checked={record} onChange={setRecord} hint="Recordings are played with the stream’s playback policy." />
          <Checkbox
            label="Generated captions (English)"
            checked={captions}
            onChange={setCaptions}
            hint="Speech recognised as it is said, in the live playlist, and transcribed again on the recording."
          />
        </div>
        <Button type="submit" disabled={createLiveStream.isPending}>
          {createLiveStream.isPending ? 'Creating…' : 'Create live stream'}
        </Button>
      </div>
      {createLiveStream.isError && <ErrorList messages={errorMessages(createLiveStream.error)} />}
    </form>
  );
}

function Checkbox({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange: (checked: boolean) => void; hint: string }) {
  return (
    <div>
      <label className="flex items-center gap-2 text-zinc-800">
        <input
          type="checkbox"
          className={`size-4 rounded border-zinc-300 accent-indigo-600 ${FOCUS_RING}`}
          checked={checked}
          onChange={(event) => onChange(event.target.checked)}
        />
        {label}
      </label>
      <p className="mt-0.5 pl-6 text-xs text-zinc-500">{hint}</p>
    </div>
  );
}
