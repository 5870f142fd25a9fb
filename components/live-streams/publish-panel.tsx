'use client';

import { useState, type ReactNode } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { LiveIngestJson, LiveStreamJson } from '../hooks/dashboard-types';
import { useLiveStreamAction } from '../hooks/use-live-stream';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { CopyButton } from '../ui/copy-button';
import { SECRET_MASK } from '../ui/format';
import { useToast } from '../ui/toast';

// A URL to copy under its title; `secret` when it holds the stream key (or the SRT passphrase).
function CopyableUrl({ title, url, testId, copyLabel, secret = false, children }: { title: string; url: string; testId: string; copyLabel: string; secret?: boolean; children?: ReactNode }) {
  return (
    <div>
      <p className="font-medium text-zinc-600">{title}</p>
      <div className="mt-1 flex items-center gap-2">
        <code className="min-w-0 flex-1 font-mono text-xs break-all" data-testid={testId}>
          {url}
        </code>
        <CopyButton value={url} label={copyLabel} secret={secret} />
      </div>
      {children}
    </div>
  );
}

// Where and how to publish: the RTMP (RTMPS, SRT) server URL, the stream key (hidden until revealed, the only
// credential an RTMP publisher needs) and, once revealed, the whole publish URLs for ffmpeg; SRT adds the
// stream's passphrase to its URL.
export function PublishPanel({ stream, ingest }: { stream: LiveStreamJson; ingest: LiveIngestJson }) {
  const [revealed, setRevealed] = useState(false);
  const [confirmingReset, setConfirmingReset] = useState(false);
  const resetKey = useLiveStreamAction(stream.id);
  const toast = useToast();
  const publishUrl = `${ingest.rtmp_url}/${stream.stream_key}`;
  const srtPublishUrl = ingest.srt_url && stream.srt_passphrase ? `${ingest.srt_url}?streamid=${stream.stream_key}&passphrase=${stream.srt_passphrase}` : null;

  return (
    <section aria-labelledby="publish-heading" className="space-y-3">
      <h2 id="publish-heading" className="text-lg font-semibold">
        Publish
      </h2>
      {!ingest.rtmp_enabled && (
        <p className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          This server is not listening for RTMP (RTMP_PORT=0): publishers are refused until it is started with an RTMP port.
        </p>
      )}
      <div className="space-y-3 rounded-md border border-zinc-200 bg-white p-3 text-sm">
        <CopyableUrl title="RTMP server URL" url={ingest.rtmp_url} testId="rtmp-url" copyLabel="Copy server URL" />
        {ingest.rtmps_url && (
          <CopyableUrl title="RTMPS server URL (TLS)" url={ingest.rtmps_url} testId="rtmps-url" copyLabel="Copy RTMPS server URL">
            {ingest.rtmps_self_signed && (
              <p className="mt-1 text-xs text-zinc-500">
                Self-signed certificate: encoders that check certificates (OBS does) need it trusted, or the server started with RTMPS_CERT_FILE and RTMPS_KEY_FILE.
              </p>
            )}
          </CopyableUrl>
        )}
        {ingest.srt_url && <CopyableUrl title="SRT server URL (with streamid and passphrase below)" url={ingest.srt_url} testId="srt-url" copyLabel="Copy SRT server URL" />}
        <div>
          <p className="font-medium text-zinc-600">Stream key</p>
          <code className="mt-1 block font-mono text-xs break-all" data-testid="stream-key">
            {revealed ? stream.stream_key : SECRET_MASK}
          </code>
          <div className="mt-2 flex flex-wrap items-center gap-2">
            <Button variant="secondary" className="px-2 py-1 text-xs" onClick={() => setRevealed(!revealed)} aria-pressed={revealed}>
              {revealed ? 'Hide' : 'Reveal'}
            </Button>
            <CopyButton value={stream.stream_key} label="Copy stream key" secret />
            <Button variant="ghost" className="ml-auto px-2 py-1 text-xs text-red-700" onClick={() => setConfirmingReset(true)}>
              Reset key
            </Button>
          </div>
          <p className="mt-1 text-xs text-zinc-500">Anyone with the key can broadcast on this stream.</p>
        </div>
        {revealed && (
          <CopyableUrl title="Publish URL (server URL + key)" url={publishUrl} testId="publish-url" copyLabel="Copy publish URL" secret>
            <p className="mt-2 text-xs text-zinc-500">
              OBS: Settings → Stream → Service “Custom…”, the server URL as Server and the key as Stream Key. ffmpeg (H.264 and AAC):
            </p>
            <pre className="mt-1 rounded bg-zinc-100 p-2 text-xs whitespace-pre-wrap break-all">
              ffmpeg -re -i input.mp4 -c:v libx264 -preset veryfast -g 60 -c:a aac -f flv {publishUrl}
            </pre>
          </CopyableUrl>
        )}
        {revealed && srtPublishUrl && (
          <CopyableUrl title="SRT publish URL (stream key and encryption passphrase)" url={srtPublishUrl} testId="srt-publish-url" copyLabel="Copy SRT publish URL" secret>
            <p className="mt-2 text-xs text-zinc-500">OBS (SRT output) or ffmpeg, MPEG-TS with H.264 and AAC:</p>
            <pre className="mt-1 rounded bg-zinc-100 p-2 text-xs whitespace-pre-wrap break-all">
              ffmpeg -re -i input.mp4 -c:v libx264 -preset veryfast -g 60 -c:a aac -f mpegts &quot;{srtPublishUrl}&quot;
            </pre>
          </CopyableUrl>
        )}
      </div>
      <ConfirmDialog
        open={confirmingReset}
        title="Reset the stream key?"
        message="The current key and SRT passphrase stop working at once: a broadcast using them is disconnected, and publishers need the new ones."
        confirmLabel="Reset key"
        busy={resetKey.isPending}
        onCancel={() => setConfirmingReset(false)}
        onConfirm={() =>
          resetKey.mutate('reset-stream-key', {
            onSuccess: () => {
              toast('success', 'Stream key reset; the old key no longer works.');
              setConfirmingReset(false);
            },
            onError: (error) => toast('error', errorMessages(error).join(' ')),
          })
        }
      />
    </section>
  );
}
