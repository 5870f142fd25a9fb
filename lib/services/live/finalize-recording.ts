import { open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { getDb } from '../../db/client';
import { getEnv } from '../../env';
import { retryThroughOutage } from '../../errors/retry-through-outage';
import type { RecordingTime } from '../../schemas/asset';
import { recordingRemuxArgs, renderConcatList, type RecordingPiece } from '../../media/live/live-transcode-args';
import { runProcess } from '../../media/run-process';
import { childProcesses } from '../processes/child-processes';
import type { Cue } from '../../media/text/cues';
import { isStoredFile, objectKeyOf, sourceFilePath } from '../../storage/asset-files';
import { deleteSharedPrefix } from '../storage/shared-storage';
import { storeTextTrackCues } from '../tracks/store-text-track';
import { hydrateBroadcast } from './broadcast-mirror';
import { readRecordingClosedCaptions } from './recording-closed-captions';
import { ingestAsset } from '../ingest/ingest-asset';
import { markAssetErrored } from '../ingest/mark-asset-errored';
import {
  broadcastDirectory,
  captionsIndexPath,
  liveInitPath,
  liveSegmentPath,
  localConnections,
  readBroadcastManifest,
  recordingListPath,
  recordingPiecePath,
  segmentIndexPath,
  type IndexedSegment,
} from './live-files';

// Turns a finished broadcast's recording into an ordinary on-demand asset: each connection's
// source segments — the publisher's, or the slate shown while it was away; those segments.jsonl
// lists, so never a half-written one — are joined behind their init segment into one fragmented
// MP4, the pieces are remuxed into one progressive MP4 (timestamps continuous, so the gaps
// between connections are not counted), and that file goes through the usual ingest as the
// asset's source. Safe to repeat: a restart runs it again.

const REMUX_TIMEOUT_MS = 30 * 60_000;
const HYDRATE_OUTAGE_MS = 60_000;

// The last line may be cut short by a crash; every complete line before it stands.
const readJsonLines = async <T>(file: string): Promise<T[]> => {
  const text = await readFile(file, 'utf8').catch(() => '');
  const items: T[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      items.push(JSON.parse(line) as T);
    } catch {
      break;
    }
  }
  return items;
};

const readIndex = (directory: string, connection: number): Promise<IndexedSegment[]> => readJsonLines<IndexedSegment>(segmentIndexPath(directory, connection));

/**
 * The recording's generated_live track: the cues heard live (captions.jsonl, in each connection's
 * time), moved onto the recording's timeline, where each connection starts when the one before
 * ended (as buildSourceFile joins them).
 */
const writeLiveCaptions = async (assetId: string): Promise<void> => {
  const tracks = await getDb().track.findMany({ where: { assetId, textSource: 'generated_live' }, select: { id: true } });
  if (tracks.length === 0) return;
  const dataDir = getEnv().dataDir;
  const directory = broadcastDirectory(dataDir, { assetId, broadcastId: assetId });
  const cues: Cue[] = [];
  let offsetSeconds = 0;
  for (const connection of await localConnections(directory)) {
    const segments = await readIndex(directory, connection);
    if (segments.length === 0) continue;
    const durationSeconds = segments.reduce((sum, segment) => sum + segment.durationSeconds, 0);
    for (const cue of await readJsonLines<Cue>(captionsIndexPath(directory, connection))) {
      if (cue.start >= durationSeconds) continue;
      cues.push({ ...cue, start: offsetSeconds + cue.start, end: offsetSeconds + Math.min(cue.end, durationSeconds) });
    }
    offsetSeconds += durationSeconds;
  }
  for (const track of tracks) await storeTextTrackCues({ assetId, trackId: track.id, cues });
};

// Segments are a few megabytes at most: each is read whole and appended.
const writePiece = async (piecePath: string, files: string[]): Promise<void> => {
  const piece = await open(piecePath, 'w');
  try {
    for (const file of files) await piece.write(await readFile(file));
  } finally {
    await piece.close();
  }
};

/** Builds the recording's source file; returns its spans, or null when nothing was recorded. */
const buildSourceFile = async (assetId: string, signal: AbortSignal): Promise<RecordingTime[] | null> => {
  const env = getEnv();
  const directory = broadcastDirectory(env.dataDir, { assetId, broadcastId: assetId });
  const manifest = await readBroadcastManifest(directory);
  if (!manifest) return null;
  const pieces: RecordingPiece[] = [];
  const times: RecordingTime[] = [];
  for (const connection of await localConnections(directory)) {
    const segments = await readIndex(directory, connection);
    if (segments.length === 0) continue;
    const piecePath = recordingPiecePath(directory, connection);
    const files = [liveInitPath(directory, connection, manifest.sourceRendition), ...segments.map((segment) => liveSegmentPath(directory, connection, manifest.sourceRendition, segment.msn))];
    await writePiece(piecePath, files);
    const durationSeconds = segments.reduce((sum, segment) => sum + segment.durationSeconds, 0);
    pieces.push({ path: piecePath, durationSeconds });
    times.push({ started_at: segments[0]!.programDateTime, duration: Math.round(durationSeconds * 1000) / 1000, type: segments[0]!.slate ? 'slate' : 'content' });
  }
  if (pieces.length === 0) return null;
  const listFile = recordingListPath(directory);
  await writeFile(listFile, renderConcatList(pieces));
  const output = `${sourceFilePath(env.dataDir, assetId)}.partial.mp4`;
  const result = await runProcess({ command: env.ffmpegPath, args: recordingRemuxArgs({ listFile, output }), signal, timeoutMs: REMUX_TIMEOUT_MS, children: childProcesses() });
  await Promise.all([...pieces.map((piece) => piece.path), listFile].map((file) => rm(file, { force: true })));
  if (result.exitCode !== 0) {
    await rm(output, { force: true });
    throw new Error(`Joining the live recording failed: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`);
  }
  await rename(output, sourceFilePath(env.dataDir, assetId));
  return times;
};

export const finalizeRecording = async ({ assetId, signal, log }: { assetId: string; signal: AbortSignal; log: Logger }): Promise<void> => {
  const env = getEnv();
  const asset = await getDb().asset.findUnique({ where: { id: assetId }, select: { status: true } });
  if (!asset || asset.status !== 'preparing') return;
  const directory = broadcastDirectory(env.dataDir, { assetId, broadcastId: assetId });
  if (!(await isStoredFile(sourceFilePath(env.dataDir, assetId)))) {
    // Connections another node recorded (it died, or the broadcast went on there) come from the
    // bucket; through an outage longer than a minute the recording is made of what is here.
    await retryThroughOutage(() => hydrateBroadcast(directory), { windowMs: HYDRATE_OUTAGE_MS, signal }).catch((error: unknown) =>
      log.warn({ err: error, assetId }, "the bucket's copy of the broadcast could not be read: the recording holds what this node has"),
    );
    // Before the source file: a finalize cut short after it would not come back here.
    await writeLiveCaptions(assetId);
    const times = await buildSourceFile(assetId, signal);
    if (!times) {
      await markAssetErrored({ assetId, type: 'invalid_input', messages: ['The live stream ended before any media was recorded'] });
      return;
    }
    await getDb().asset.updateMany({ where: { id: assetId }, data: { recordingTimesJson: JSON.stringify(times), isLive: false } });
    log.info({ assetId, seconds: times.reduce((sum, time) => sum + time.duration, 0), connections: times.length }, 'live recording joined');
  }
  try {
    await ingestAsset({ assetId, signal, log });
    // The recording is an asset of its own now: the broadcast's copy in the bucket has served.
    await deleteSharedPrefix(`${objectKeyOf(env.dataDir, directory)}/`);
  } finally {
    // Also after a failed ingest: its captions tracks end errored rather than preparing for ever.
    if (!signal.aborted) await readRecordingClosedCaptions({ assetId, signal, log });
  }
};
