import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { cea608ToWebVttArgs, isReadableCea608Channel } from '../../media/captions/cea608-args';
import { runProcess } from '../../media/run-process';
import { parseSubtitles } from '../../media/text/parse-subtitles';
import { sourceInput } from '../inputs/source-input';
import { childProcesses } from '../processes/child-processes';
import { settleTrackErrored, settleTrackReady } from '../tracks/settle-track';
import { storeTextTrackCues } from '../tracks/store-text-track';
import { embeddedCaptionsChannel } from './broadcast-state';

// A live recording's embedded captions (the stream's embedded_subtitles): each preparing
// `closed_captions` track is read out of the recording's video — the CEA-608 channel its
// publisher carried — and stored like any text track. A channel with nothing on it errors its
// track, saying so; the asset is never affected.

const EXTRACT_TIMEOUT_MS = 30 * 60_000;

export const readRecordingClosedCaptions = async ({ assetId, signal, log }: { assetId: string; signal: AbortSignal; log: Logger }): Promise<void> => {
  const tracks = await getDb().track.findMany({ where: { assetId, textSource: 'embedded', status: 'preparing' }, select: { id: true, sourceUrl: true } });
  if (tracks.length === 0) return;
  const env = getEnv();
  const work = await mkdtemp(path.join(os.tmpdir(), 'keyframe-cea608-'));
  try {
    for (const track of tracks) {
      const channel = embeddedCaptionsChannel(track.sourceUrl) ?? 'cc1';
      if (!isReadableCea608Channel(channel)) {
        await settleTrackErrored(track.id, { messages: [`Captions on ${channel} cannot be read by this server (cc1 and cc3 can)`] });
        continue;
      }
      const output = path.join(work, `${track.id}.vtt`);
      const result = await runProcess({
        command: env.ffmpegPath,
        args: cea608ToWebVttArgs({ input: await sourceInput(assetId), channel, output }),
        signal,
        timeoutMs: EXTRACT_TIMEOUT_MS,
        background: true,
        children: childProcesses(),
      });
      if (result.aborted) return;
      const parsed = result.exitCode === 0 ? parseSubtitles(await readFile(output, 'utf8').catch(() => '')) : null;
      if (!parsed?.ok || parsed.cues.length === 0) {
        const why = result.exitCode === 0 ? `no CEA-608 captions on ${channel} in the recording` : `the recording's captions could not be read: ${result.stderr.trim().slice(-300)}`;
        await settleTrackErrored(track.id, { messages: [why.charAt(0).toUpperCase() + why.slice(1)] });
        continue;
      }
      await storeTextTrackCues({ assetId, trackId: track.id, cues: parsed.cues });
      await settleTrackReady(track.id);
      log.info({ assetId, channel, cues: parsed.cues.length }, 'embedded captions read from the recording');
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
};
