'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { errorMessages } from '../hooks/api-fetch';
import type { LiveStreamJson } from '../hooks/dashboard-types';
import { useDeleteLiveStream, useLiveStreamAction } from '../hooks/use-live-stream';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { useToast } from '../ui/toast';

type Confirmable = 'complete' | 'disable' | 'delete';

const CONFIRMATIONS: Record<Confirmable, { title: string; message: string; confirmLabel: string }> = {
  complete: {
    title: 'End this broadcast?',
    message: 'The publisher is disconnected, the recording closes and viewers see the end of the stream. The stream stays ready for the next broadcast.',
    confirmLabel: 'End broadcast',
  },
  disable: {
    title: 'Disable this live stream?',
    message: 'The running broadcast ends and publishers are refused until the stream is enabled again.',
    confirmLabel: 'Disable stream',
  },
  delete: {
    title: 'Delete this live stream?',
    message: 'A running broadcast ends, and the stream, its key and its playback IDs are deleted. Its recordings stay as assets. This cannot be undone.',
    confirmLabel: 'Delete live stream',
  },
};

const DONE: Record<'complete' | 'disable' | 'enable', string> = {
  complete: 'Broadcast ended.',
  disable: 'Live stream disabled.',
  enable: 'Live stream enabled; it accepts its publisher again.',
};

// Complete (while a broadcast runs), disable or enable, delete. What would cut a running
// broadcast asks first.
export function LiveStreamActions({ stream }: { stream: LiveStreamJson }) {
  const [confirming, setConfirming] = useState<Confirmable>();
  const action = useLiveStreamAction(stream.id);
  const deleteLiveStream = useDeleteLiveStream();
  const router = useRouter();
  const toast = useToast();

  const run = (name: keyof typeof DONE) =>
    action.mutate(name, {
      onSuccess: () => {
        toast('success', DONE[name]);
        setConfirming(undefined);
      },
      onError: (error) => toast('error', errorMessages(error).join(' ')),
    });

  const remove = () =>
    deleteLiveStream.mutate(stream.id, {
      onSuccess: () => {
        toast('success', 'Live stream deleted.');
        router.push('/live-streams');
      },
      onError: (error) => toast('error', errorMessages(error).join(' ')),
    });

  const confirmation = confirming && CONFIRMATIONS[confirming];
  return (
    <>
      {stream.status === 'active' && (
        <Button variant="secondary" disabled={action.isPending} onClick={() => setConfirming('complete')}>
          Complete
        </Button>
      )}
      {stream.status === 'disabled' ? (
        <Button variant="secondary" disabled={action.isPending} onClick={() => run('enable')}>
          Enable
        </Button>
      ) : (
        <Button variant="secondary" disabled={action.isPending} onClick={() => (stream.status === 'active' ? setConfirming('disable') : run('disable'))}>
          Disable
        </Button>
      )}
      <Button variant="danger" onClick={() => setConfirming('delete')}>
        Delete
      </Button>
      <ConfirmDialog
        open={confirmation !== undefined}
        title={confirmation?.title ?? ''}
        message={confirmation?.message ?? ''}
        confirmLabel={confirmation?.confirmLabel ?? ''}
        busy={action.isPending || deleteLiveStream.isPending}
        onCancel={() => setConfirming(undefined)}
        onConfirm={() => (confirming === 'delete' ? remove() : confirming && run(confirming))}
      />
    </>
  );
}
