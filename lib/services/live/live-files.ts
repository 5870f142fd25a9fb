import { appendFile, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  BROADCAST_MANIFEST_FILE,
  INIT_FILE,
  LIVE_RECORDING_LIST_FILE,
  LIVE_RECORDING_PIECE_FILE,
  LIVE_CAPTIONS_INDEX_FILE,
  LIVE_SEGMENT_INDEX_FILE,
  liveConnectionFolder,
  parseLiveConnectionFolder,
  segmentFileName,
} from '../../media/names';
import type { Cue } from '../../media/text/cues';
import { assetDirectory } from '../../storage/asset-files';

// Where a broadcast's media lives on the ingest node: under the recording asset's folder (so
// deleting the asset removes it), or under DATA_DIR/live for a stream that keeps no recording.
// `c{connection}/{rendition}/init.mp4` and `{msn}.m4s`, plus `c{connection}/segments.jsonl`: one
// line per segment of the source rendition, written after its file, which is what a recording
// (also one rebuilt after a crash) is made of; and, with generated captions, `c{connection}/captions.jsonl`.

export const broadcastDirectory = (dataDir: string, recording: { assetId: string | null; broadcastId: string }): string =>
  recording.assetId ? path.join(assetDirectory(dataDir, recording.assetId), 'live') : path.join(dataDir, 'live', recording.broadcastId);

/** The connections whose folders the broadcast has on this node, in order. */
export const localConnections = async (broadcastDir: string): Promise<number[]> => {
  const names = await readdir(broadcastDir).catch(() => [] as string[]);
  return names
    .map(parseLiveConnectionFolder)
    .filter((index) => index !== null)
    .sort((a, b) => a - b);
};

export const connectionDirectory = (broadcastDir: string, connection: number): string => path.join(broadcastDir, liveConnectionFolder(connection));

export const liveInitPath = (broadcastDir: string, connection: number, rendition: string): string =>
  path.join(connectionDirectory(broadcastDir, connection), rendition, INIT_FILE);

export const liveSegmentPath = (broadcastDir: string, connection: number, rendition: string, msn: number): string =>
  path.join(connectionDirectory(broadcastDir, connection), rendition, segmentFileName(msn));

export const segmentIndexPath = (broadcastDir: string, connection: number): string =>
  path.join(connectionDirectory(broadcastDir, connection), LIVE_SEGMENT_INDEX_FILE);

/** `captions.jsonl`: the generated captions' cues heard on the connection, a Cue per line, in connection time. */
export const captionsIndexPath = (broadcastDir: string, connection: number): string =>
  path.join(connectionDirectory(broadcastDir, connection), LIVE_CAPTIONS_INDEX_FILE);

export const appendCaptionLines = async (broadcastDir: string, connection: number, cues: readonly Cue[]): Promise<void> => {
  if (cues.length > 0) await appendFile(captionsIndexPath(broadcastDir, connection), cues.map((cue) => `${JSON.stringify(cue)}\n`).join(''));
};

// Made while a recording is finalized, and removed after: each connection's segments joined behind
// their init segment, and ffmpeg's concat list of those pieces.
export const recordingPiecePath = (broadcastDir: string, connection: number): string =>
  path.join(connectionDirectory(broadcastDir, connection), LIVE_RECORDING_PIECE_FILE);

export const recordingListPath = (broadcastDir: string): string => path.join(broadcastDir, LIVE_RECORDING_LIST_FILE);

/** One line of segments.jsonl. */
export type IndexedSegment = {
  msn: number;
  durationSeconds: number;
  programDateTime: string;
  /** Slate shown while the publisher was away (see Broadcast.showSlate), not the publisher's media. */
  slate?: true;
};

// Published whole (temp file + rename), so a reader or a crash never sees half a segment.
export const writeFileAtomically = async (filePath: string, bytes: Uint8Array): Promise<void> => {
  await mkdir(path.dirname(filePath), { recursive: true });
  const temporary = `${filePath}.partial`;
  await writeFile(temporary, bytes);
  await rename(temporary, filePath);
};

export const appendIndexLine = async (broadcastDir: string, connection: number, segment: IndexedSegment): Promise<void> => {
  await appendFile(segmentIndexPath(broadcastDir, connection), `${JSON.stringify(segment)}\n`);
};

/**
 * What a broadcast's folder holds, written when it starts: enough to rebuild its recording after a
 * crash. `connections`: how many connections it has had, kept up to date where the broadcast is
 * mirrored to the bucket (broadcast-mirror.ts).
 */
export type BroadcastManifest = { liveStreamId: string; latencyMode: string; sourceRendition: string; renditions: string[]; connections?: number };

export const broadcastManifestPath = (broadcastDir: string): string => path.join(broadcastDir, BROADCAST_MANIFEST_FILE);

/** Lines per chunk of an index mirrored to the bucket (S3 cannot append: see broadcast-mirror.ts). */
export const MIRRORED_LINES_CHUNK = 100;

/** Chunk `chunk` of a mirrored index: `segments.jsonl` → `segments.{chunk}.jsonl`. */
export const mirroredLinesPath = (indexPath: string, chunk: number): string => indexPath.replace(/\.jsonl$/, `.${chunk}.jsonl`);

export const writeBroadcastManifest = (broadcastDir: string, manifest: BroadcastManifest): Promise<void> =>
  writeFileAtomically(broadcastManifestPath(broadcastDir), Buffer.from(JSON.stringify(manifest)));

export const readBroadcastManifest = async (broadcastDir: string): Promise<BroadcastManifest | null> => {
  try {
    return JSON.parse(await readFile(broadcastManifestPath(broadcastDir), 'utf8')) as BroadcastManifest;
  } catch {
    return null;
  }
};
