'use client';

import { useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { AssetJson } from '../hooks/dashboard-types';
import { useEmbedCode } from '../hooks/use-analytics-player';
import { Button, FOCUS_RING } from '../ui/button';
import { CopyButton } from '../ui/copy-button';
import { ErrorList } from '../ui/field';

function EmbedCode({ playbackId, signed }: { playbackId: string; signed: boolean }) {
  const embed = useEmbedCode(playbackId);
  const [previewing, setPreviewing] = useState(false);
  if (embed.isError) return <ErrorList messages={errorMessages(embed.error)} />;
  if (!embed.data) return <p className="text-sm text-zinc-500">Loading…</p>;
  return (
    <div className="space-y-2">
      <label className="block text-sm font-medium text-zinc-800">
        Embed code
        <textarea
          readOnly
          rows={4}
          value={embed.data.html}
          className="mt-1 block w-full resize-none rounded-md border border-zinc-300 bg-zinc-50 p-2 font-mono text-xs focus-visible:outline-2 focus-visible:outline-indigo-600"
          data-testid="embed-code"
          onFocus={(event) => event.currentTarget.select()}
        />
      </label>
      <div className="flex flex-wrap items-center gap-3">
        <CopyButton value={embed.data.html} label="Copy embed code" />
        <Button variant="secondary" aria-expanded={previewing} onClick={() => setPreviewing((shown) => !shown)}>
          {previewing ? 'Hide the embedded player' : 'Preview the embedded player'}
        </Button>
        <a href={embed.data.url} target="_blank" rel="noopener noreferrer" className={`text-sm text-indigo-700 underline ${FOCUS_RING}`} data-testid="player-page-link">
          Open the player page<span className="sr-only"> (new tab)</span>
        </a>
      </div>
      {/* The embed exactly as another site shows it: the player page with mux-player, reporting its own views. */}
      {previewing && (
        <iframe
          src={embed.data.url}
          title="Embedded player preview"
          className="aspect-video w-full rounded-md border-0 bg-black"
          allow="accelerometer; gyroscope; autoplay; encrypted-media; picture-in-picture"
          allowFullScreen
          data-testid="embed-preview"
        />
      )}
      {signed && (
        <p className="text-xs text-zinc-500">
          Signed playback ID: add <code>?playback-token=</code> (and <code>thumbnail-token</code>, <code>storyboard-token</code>) with JWTs
          made from a signing key.
        </p>
      )}
    </div>
  );
}

// The player page (/player/{playback_id}) as an <iframe> to paste into any site; its views are
// reported to this server's analytics.
export function EmbedCodePanel({ asset }: { asset: AssetJson }) {
  const playbackIds = asset.playback_ids ?? [];
  const chosen = playbackIds.find((playbackId) => playbackId.policy === 'public') ?? playbackIds[0];
  return (
    <section aria-labelledby="embed-heading" className="space-y-3">
      <h2 id="embed-heading" className="text-lg font-semibold">
        Embed
      </h2>
      {chosen ? (
        <EmbedCode playbackId={chosen.id} signed={chosen.policy === 'signed'} />
      ) : (
        <p className="text-sm text-zinc-600">Add a playback ID to embed this asset.</p>
      )}
    </section>
  );
}
