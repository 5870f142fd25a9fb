'use client';

import { useState, type FormEvent } from 'react';
import { isSrtUrl } from '@/lib/schemas/simulcast-target';
import { errorMessages } from '../hooks/api-fetch';
import type { LiveStreamJson, SimulcastTargetJson } from '../hooks/dashboard-types';
import { useCreateSimulcastTarget, useDeleteSimulcastTarget } from '../hooks/use-live-stream';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { ErrorList, TextField } from '../ui/field';
import { SECRET_MASK } from '../ui/format';
import { StatusBadge } from '../ui/status-badge';
import { useToast } from '../ui/toast';

// Why the targets cannot change now: as on Mux, only an idle stream's targets can (a running
// broadcast's restreams were set when its publisher connected).
const LOCKED_BECAUSE: Record<string, string> = {
  active: 'A broadcast is running: targets can be added or removed once it has ended and the stream is idle again.',
  disabled: 'The stream is disabled: enable it to add or remove targets.',
};

const SEVERITY_NOTE: Record<string, string> = {
  normal: 'retrying',
  fatal: 'not retried for this broadcast',
};

function TargetRow({ target, locked, onRemove }: { target: SimulcastTargetJson; locked: boolean; onRemove: () => void }) {
  return (
    <li className="rounded-md border border-zinc-200 bg-white p-3 text-sm" data-testid="simulcast-target">
      <div className="flex flex-wrap items-center gap-2">
        <code className="min-w-0 flex-1 font-mono text-xs break-all" data-testid="simulcast-target-url">
          {target.url}
        </code>
        <span data-testid="simulcast-target-status">
          <StatusBadge status={target.status} />
        </span>
        {target.error_severity && <span className="text-xs text-red-700">{SEVERITY_NOTE[target.error_severity]}</span>}
      </div>
      <dl className="mt-2 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-xs text-zinc-600">
        <dt>Stream key</dt>
        <dd className="font-mono" data-testid="simulcast-target-key">
          {target.stream_key ? SECRET_MASK : 'none'}
        </dd>
        {target.passthrough && (
          <>
            <dt>Passthrough</dt>
            <dd className="break-all">{target.passthrough}</dd>
          </>
        )}
      </dl>
      <div className="mt-2 flex justify-end">
        <Button variant="ghost" className="px-2 py-1 text-xs text-red-700" disabled={locked} onClick={onRemove} aria-label={`Remove simulcast target ${target.url}`}>
          Remove
        </Button>
      </div>
    </li>
  );
}

function AddTargetForm({ liveStreamId, locked }: { liveStreamId: string; locked: boolean }) {
  const [url, setUrl] = useState('');
  const [streamKey, setStreamKey] = useState('');
  const [passthrough, setPassthrough] = useState('');
  const createTarget = useCreateSimulcastTarget(liveStreamId);
  const toast = useToast();
  // An SRT URL carries its stream id itself; the key field would only earn a 400.
  const srt = isSrtUrl(url.trim());

  const submit = (event: FormEvent) => {
    event.preventDefault();
    createTarget.mutate(
      {
        url: url.trim(),
        ...(!srt && streamKey !== '' && { stream_key: streamKey }),
        ...(passthrough.trim() !== '' && { passthrough: passthrough.trim() }),
      },
      {
        onSuccess: () => {
          toast('success', 'Simulcast target added: the next broadcast is restreamed to it.');
          setUrl('');
          setStreamKey('');
          setPassthrough('');
        },
      },
    );
  };

  return (
    <form onSubmit={submit} className="space-y-3 rounded-md border border-zinc-200 bg-white p-3" noValidate aria-label="Add a simulcast target">
      <fieldset disabled={locked} className="space-y-3">
        <TextField
          label="Target URL"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          placeholder="rtmp://a.rtmp.youtube.com/live2"
          maxLength={1024}
          autoComplete="off"
          spellCheck={false}
        />
        <TextField
          label={srt ? 'Stream key (not used: the srt:// URL carries its streamid)' : 'Stream key'}
          type="password"
          value={srt ? '' : streamKey}
          onChange={(event) => setStreamKey(event.target.value)}
          disabled={srt}
          maxLength={255}
          autoComplete="off"
        />
        <TextField label="Passthrough (optional)" value={passthrough} onChange={(event) => setPassthrough(event.target.value)} maxLength={255} />
        <div className="flex justify-end">
          <Button type="submit" variant="secondary" disabled={createTarget.isPending || url.trim() === ''}>
            {createTarget.isPending ? 'Adding…' : 'Add target'}
          </Button>
        </div>
      </fieldset>
      {createTarget.isError && <ErrorList messages={errorMessages(createTarget.error)} />}
    </form>
  );
}

// Where each broadcast is restreamed to (YouTube, Twitch, another RTMP or SRT server): each
// target's URL, whether it has a key (never shown), and how its restream is doing while a
// broadcast runs (the page polls the stream, so the status follows).
export function SimulcastTargets({ stream }: { stream: LiveStreamJson }) {
  const [removing, setRemoving] = useState<SimulcastTargetJson>();
  const deleteTarget = useDeleteSimulcastTarget(stream.id);
  const toast = useToast();
  const targets = stream.simulcast_targets ?? [];
  const lockedBecause = stream.status === 'idle' ? undefined : (LOCKED_BECAUSE[stream.status] ?? 'Targets can be added or removed only while the stream is idle.');
  const locked = lockedBecause !== undefined;

  return (
    <section aria-labelledby="simulcast-targets-heading" className="space-y-3">
      <h2 id="simulcast-targets-heading" className="text-lg font-semibold">
        Simulcast targets
      </h2>
      {targets.length === 0 && (
        <p className="text-sm text-zinc-600">None: add a target to restream each broadcast, as it is published, to YouTube, Twitch or another RTMP or SRT server.</p>
      )}
      <ul className="space-y-2">
        {targets.map((target) => (
          <TargetRow key={target.id} target={target} locked={locked} onRemove={() => setRemoving(target)} />
        ))}
      </ul>
      {lockedBecause && (
        <p className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900" data-testid="simulcast-targets-locked">
          {lockedBecause}
        </p>
      )}
      <AddTargetForm liveStreamId={stream.id} locked={locked} />
      <ConfirmDialog
        open={removing !== undefined}
        title="Remove this simulcast target?"
        message={`Broadcasts will no longer be restreamed to ${removing?.url ?? ''}, and its stream key is forgotten.`}
        confirmLabel="Remove target"
        busy={deleteTarget.isPending}
        onCancel={() => setRemoving(undefined)}
        onConfirm={() =>
          removing &&
          deleteTarget.mutate(removing.id, {
            onSuccess: () => {
              toast('success', 'Simulcast target removed.');
              setRemoving(undefined);
            },
            onError: (error) => toast('error', errorMessages(error).join(' ')),
          })
        }
      />
    </section>
  );
}
