'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { TrackJson } from '../hooks/dashboard-types';
import { useAddSubtitleTrack, useGenerateCaptions, useUpdateTrack } from '../hooks/use-tracks';
import { Button } from '../ui/button';
import { Dialog } from '../ui/dialog';
import { ErrorList, SelectField, TextField } from '../ui/field';
import { useToast } from '../ui/toast';
import { languageLabel, plainSentence } from './track-text';

// The tracks panel's forms, each in a dialog: add subtitles from a URL, generate captions from an
// audio track, edit a track's name, language and closed-captions flag.

/** What this server's caption engine transcribes (the API accepts Mux's longer list and errors the rest). */
const CAPTION_LANGUAGES = [{ code: 'en', label: 'English' }] as const;

function FormButtons({ busy, submitLabel, busyLabel, onCancel }: { busy: boolean; submitLabel: string; busyLabel: string; onCancel: () => void }) {
  return (
    <div className="flex justify-end gap-2">
      <Button variant="secondary" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" disabled={busy}>
        {busy ? busyLabel : submitLabel}
      </Button>
    </div>
  );
}

function Checkbox({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange: (checked: boolean) => void; hint?: ReactNode }) {
  return (
    <div>
      <label className="inline-flex items-center gap-2 text-sm font-medium text-zinc-800">
        <input type="checkbox" className="h-4 w-4 accent-indigo-600" checked={checked} onChange={(event) => onChange(event.target.checked)} />
        {label}
      </label>
      {hint && <p className="text-xs text-zinc-600">{hint}</p>}
    </div>
  );
}

const CLOSED_CAPTIONS_HINT = 'Closed captions also describe sounds and music, for viewers who cannot hear them.';

export function AddSubtitlesDialog({ assetId, open, onClose }: { assetId: string; open: boolean; onClose: () => void }) {
  const [url, setUrl] = useState('');
  const [languageCode, setLanguageCode] = useState('');
  const [name, setName] = useState('');
  const [closedCaptions, setClosedCaptions] = useState(false);
  const add = useAddSubtitleTrack(assetId);
  const toast = useToast();

  const close = () => {
    add.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate(
      { url: url.trim(), language_code: languageCode.trim(), name: name.trim() || undefined, closed_captions: closedCaptions },
      {
        onSuccess: (track) => {
          toast('success', `Adding the subtitles “${track.name}”; they are being prepared.`);
          setUrl('');
          setLanguageCode('');
          setName('');
          setClosedCaptions(false);
          close();
        },
      },
    );
  };

  return (
    <Dialog open={open} onClose={close} title="Add subtitles">
      <form onSubmit={submit} className="space-y-4" noValidate>
        <TextField
          label="Subtitle file URL (WebVTT or SRT)"
          type="url"
          placeholder="https://example.com/subtitles.vtt"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          required
          autoFocus
        />
        <TextField
          label="Language code"
          placeholder="en, fr, pt-BR"
          value={languageCode}
          onChange={(event) => setLanguageCode(event.target.value)}
          required
          maxLength={35}
        />
        <TextField label="Name (optional)" placeholder="Named after the language" value={name} onChange={(event) => setName(event.target.value)} maxLength={255} />
        <Checkbox label="Closed captions" checked={closedCaptions} onChange={setClosedCaptions} hint={CLOSED_CAPTIONS_HINT} />
        {add.isError && <ErrorList messages={errorMessages(add.error).map(plainSentence)} />}
        <FormButtons busy={add.isPending} submitLabel="Add subtitles" busyLabel="Adding…" onCancel={close} />
      </form>
    </Dialog>
  );
}

export function GenerateCaptionsDialog({
  assetId,
  audioTracks,
  open,
  onClose,
}: {
  assetId: string;
  audioTracks: TrackJson[];
  open: boolean;
  onClose: () => void;
}) {
  const [audioTrackId, setAudioTrackId] = useState('');
  const [languageCode, setLanguageCode] = useState<string>(CAPTION_LANGUAGES[0].code);
  const generate = useGenerateCaptions(assetId);
  const toast = useToast();
  const chosen = audioTrackId || audioTracks[0]?.id || '';

  const close = () => {
    generate.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    generate.mutate(
      { audioTrackId: chosen, languageCode },
      {
        onSuccess: ([track]) => {
          toast('success', `Generating the captions “${track?.name ?? ''}”.`);
          close();
        },
      },
    );
  };

  return (
    <Dialog open={open} onClose={close} title="Generate captions">
      <form onSubmit={submit} className="space-y-4" noValidate>
        <SelectField label="From the audio track" value={chosen} onChange={(event) => setAudioTrackId(event.target.value)} autoFocus>
          {audioTracks.map((track) => (
            <option key={track.id} value={track.id}>
              {track.name}
              {track.language_code ? ` (${track.language_code})` : ''}
            </option>
          ))}
        </SelectField>
        <div>
          <SelectField label="Spoken language" value={languageCode} onChange={(event) => setLanguageCode(event.target.value)} aria-describedby="caption-languages-note">
            {CAPTION_LANGUAGES.map((language) => (
              <option key={language.code} value={language.code}>
                {language.label}
              </option>
            ))}
          </SelectField>
          <p id="caption-languages-note" className="mt-1 text-xs text-zinc-600">
            This server transcribes English only; captions in other languages are not available. Add a subtitle file for them instead.
          </p>
        </div>
        {generate.isError && <ErrorList messages={errorMessages(generate.error).map(plainSentence)} />}
        <FormButtons busy={generate.isPending} submitLabel="Generate captions" busyLabel="Starting…" onCancel={close} />
      </form>
    </Dialog>
  );
}

export function EditTrackDialog({ assetId, track, onClose }: { assetId: string; track: TrackJson | undefined; onClose: () => void }) {
  return (
    <Dialog open={track !== undefined} onClose={onClose} title="Edit track">
      {/* Keyed, so the fields start from the track being edited each time. */}
      {track && <EditTrackForm key={track.id} assetId={assetId} track={track} onClose={onClose} />}
    </Dialog>
  );
}

function EditTrackForm({ assetId, track, onClose }: { assetId: string; track: TrackJson; onClose: () => void }) {
  const [name, setName] = useState(track.name);
  const [languageCode, setLanguageCode] = useState(track.language_code ?? '');
  const [closedCaptions, setClosedCaptions] = useState(track.type === 'text' && track.closed_captions);
  const update = useUpdateTrack(assetId);
  const toast = useToast();
  const languageHint = languageCode.trim() ? languageLabel(languageCode.trim()) : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const changes = {
      ...(name.trim() !== track.name && { name: name.trim() }),
      ...(languageCode.trim() !== (track.language_code ?? '') && { language_code: languageCode.trim() }),
      ...(track.type === 'text' && closedCaptions !== track.closed_captions && { closed_captions: closedCaptions }),
    };
    if (Object.keys(changes).length === 0) return onClose();
    update.mutate(
      { trackId: track.id, changes },
      {
        onSuccess: (updated) => {
          toast('success', `Track “${updated.name}” saved.`);
          onClose();
        },
      },
    );
  };

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} required maxLength={255} autoFocus />
      <TextField
        label="Language code"
        placeholder="en, fr, pt-BR"
        value={languageCode}
        onChange={(event) => setLanguageCode(event.target.value)}
        maxLength={35}
      />
      {languageHint !== undefined && languageHint !== languageCode.trim() && <p className="text-xs text-zinc-600">{languageHint}</p>}
      {track.type === 'text' && <Checkbox label="Closed captions" checked={closedCaptions} onChange={setClosedCaptions} hint={CLOSED_CAPTIONS_HINT} />}
      {update.isError && <ErrorList messages={errorMessages(update.error).map(plainSentence)} />}
      <FormButtons busy={update.isPending} submitLabel="Save" busyLabel="Saving…" onCancel={onClose} />
    </form>
  );
}
