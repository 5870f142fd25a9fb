import path from 'node:path';
import type { Logger } from 'pino';
import { getEnv } from '../../env';
import { retryThroughOutage } from '../../errors/retry-through-outage';
import { isStoredFile, objectKeyOf } from '../../storage/asset-files';
import type { S3ObjectStore } from '../../storage/object-store';
import { copyFromBucket, shareFile, sharedStore } from '../storage/shared-storage';
import {
  broadcastManifestPath,
  captionsIndexPath,
  liveInitPath,
  liveSegmentPath,
  mirroredLinesPath,
  MIRRORED_LINES_CHUNK,
  readBroadcastManifest,
  segmentIndexPath,
  writeBroadcastManifest,
  writeFileAtomically,
  type BroadcastManifest,
  type IndexedSegment,
} from './live-files';

// With shared storage (the scaled configuration) a recording's broadcast is copied to the bucket
// as it is written: the source rendition's init and segments, each connection's segment and
// caption index, and the manifest with the number of connections so far. If its node dies, the
// node the publisher reconnects to continues the same recording after the last segment the bucket
// has (live-runtime.ts), and whichever node finalizes the recording fetches the connections it
// did not make itself (hydrateBroadcast). Only the source rendition is kept: a recording is made
// of it alone, and the encoded rungs of a live window that has moved on are never asked for again.
//
// Uploads go one after another, so an index line reaches the bucket only after its segment; a
// bucket outage holds them back (retried for OUTAGE_WINDOW_MS) rather than reordering them. S3
// cannot append, so an index is uploaded in chunks of MIRRORED_LINES_CHUNK lines, the last chunk
// again with each new line (a few kilobytes), never the whole index.

const OUTAGE_WINDOW_MS = 30_000;

export type BroadcastMirror = {
  /** A connection started: `connections` now exist (the manifest in the bucket says so). */
  connectionStarted(connections: number): void;
  /** An init or a segment of the source rendition, just written locally. */
  file(filePath: string, bytes: Buffer): void;
  /** Lines just appended to a local index (segments.jsonl, captions.jsonl). */
  lines(indexPath: string, lines: string[]): void;
};

/** The mirror of a recording's broadcast; null without shared storage or without a recording. */
export const startBroadcastMirror = ({ directory, manifest, log }: { directory: string; manifest: BroadcastManifest; log: Logger }): BroadcastMirror | null => {
  if (sharedStore() === null) return null;
  let queue: Promise<void> = Promise.resolve();
  // Once an upload has been given up on, the next ones are tried once each until one succeeds: a
  // long outage must not pile the broadcast's media up in memory behind it.
  let failing = false;
  const upload = (what: string, filePath: string, bytes: Buffer) => {
    queue = queue.then(async () => {
      try {
        await retryThroughOutage(() => shareFile(filePath, bytes), { windowMs: failing ? 0 : OUTAGE_WINDOW_MS, only: ['storage', 'network'] });
        failing = false;
      } catch (error) {
        if (!failing) log.warn({ err: error, filePath }, `could not copy ${what} of a live recording to the bucket; another node could not continue it from here`);
        failing = true;
      }
    });
  };
  // Per index: the lines of its current chunk and how many came before it.
  const chunks = new Map<string, { first: number; lines: string[] }>();
  return {
    connectionStarted: (connections) => {
      const updated: BroadcastManifest = { ...manifest, connections };
      queue = queue.then(() => writeBroadcastManifest(directory, updated)).catch((error: unknown) => log.warn({ err: error }, 'could not update the broadcast manifest'));
      upload('the manifest', broadcastManifestPath(directory), Buffer.from(JSON.stringify(updated)));
    },
    file: (filePath, bytes) => upload('a segment', filePath, bytes),
    lines: (indexPath, lines) => {
      for (const line of lines) {
        let chunk = chunks.get(indexPath) ?? { first: 0, lines: [] };
        if (chunk.lines.length === MIRRORED_LINES_CHUNK) chunk = { first: chunk.first + MIRRORED_LINES_CHUNK, lines: [] };
        chunk.lines.push(line);
        chunks.set(indexPath, chunk);
        const bytes = Buffer.from(chunk.lines.map((each) => `${each}\n`).join(''));
        upload('an index', mirroredLinesPath(indexPath, chunk.first / MIRRORED_LINES_CHUNK), bytes);
      }
    },
  };
};

const folderKey = (folder: string) => `${objectKeyOf(getEnv().dataDir, folder)}/`;

const readObject = async (store: S3ObjectStore, filePath: string): Promise<string | null> => {
  const stream = await store.createReadStream(objectKeyOf(getEnv().dataDir, filePath));
  if (!stream) return null;
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
};

const readBucketManifest = async (store: S3ObjectStore, directory: string): Promise<BroadcastManifest | null> => {
  const text = await readObject(store, broadcastManifestPath(directory));
  return text === null ? null : (JSON.parse(text) as BroadcastManifest);
};

// A connection's index as the bucket has it: its chunks in order, each line parsed; a line cut
// short (there is none: chunks are uploaded whole) would end it.
const readMirroredLines = async (store: S3ObjectStore, indexPath: string): Promise<string[]> => {
  const base = path.basename(indexPath, '.jsonl');
  const pattern = new RegExp(`^${base}\\.(\\d+)\\.jsonl$`);
  const names = await store.listFolder(folderKey(path.dirname(indexPath)));
  const numbers = names.flatMap((name) => {
    const match = pattern.exec(name);
    return match ? [Number(match[1])] : [];
  });
  const lines: string[] = [];
  for (const chunk of numbers.sort((a, b) => a - b)) {
    const text = await readObject(store, mirroredLinesPath(indexPath, chunk));
    lines.push(...(text ?? '').split('\n').filter((line) => line.trim() !== ''));
  }
  return lines;
};

const parseSegments = (lines: string[]): IndexedSegment[] => lines.map((line) => JSON.parse(line) as IndexedSegment);

/** What the bucket has of a recording's broadcast: where a node continuing it takes up. */
export type MirroredBroadcast = {
  manifest: BroadcastManifest;
  /** Connections started so far (the next one is numbered so). */
  connections: number;
  /** The last segment that reached the bucket, and when its media ended (wall clock, ms). */
  last: { msn: number; endMs: number } | null;
};

export const readMirroredBroadcast = async (directory: string): Promise<MirroredBroadcast | null> => {
  const store = sharedStore();
  if (store === null) return null;
  const manifest = await readBucketManifest(store, directory);
  if (!manifest?.connections) return null;
  for (let connection = manifest.connections - 1; connection >= 0; connection--) {
    const segments = parseSegments(await readMirroredLines(store, segmentIndexPath(directory, connection)));
    const last = segments.at(-1);
    if (last) return { manifest, connections: manifest.connections, last: { msn: last.msn, endMs: Date.parse(last.programDateTime) + last.durationSeconds * 1000 } };
  }
  return { manifest, connections: manifest.connections, last: null };
};

/** How many connections of the broadcast the bucket knows of (0 when it has no copy). */
export const mirroredConnectionCount = async (directory: string): Promise<number> => {
  const store = sharedStore();
  if (store === null) return 0;
  return (await readBucketManifest(store, directory))?.connections ?? 0;
};

/**
 * Fetches the connections of a recording's broadcast this node did not make (another node
 * recorded them before it died, or continued after this one) from the bucket, so that the
 * recording is finalized whole. A connection's index is written last, and only as far as its
 * segments could be fetched: what it lists is there. A no-op without shared storage.
 */
export const hydrateBroadcast = async (directory: string): Promise<void> => {
  const store = sharedStore();
  if (store === null) return;
  const manifest = await readBucketManifest(store, directory);
  if (!manifest?.connections) return;
  if (!(await readBroadcastManifest(directory))) await writeBroadcastManifest(directory, manifest);
  for (let connection = 0; connection < manifest.connections; connection++) {
    const indexPath = segmentIndexPath(directory, connection);
    if (await isStoredFile(indexPath)) continue;
    const lines = await readMirroredLines(store, indexPath);
    if (lines.length === 0) continue;
    if (!(await copyFromBucket(store, liveInitPath(directory, connection, manifest.sourceRendition)))) continue;
    const fetched: string[] = [];
    for (const [at, segment] of parseSegments(lines).entries()) {
      if (!(await copyFromBucket(store, liveSegmentPath(directory, connection, manifest.sourceRendition, segment.msn)))) break;
      fetched.push(lines[at]!);
    }
    const captions = await readMirroredLines(store, captionsIndexPath(directory, connection));
    const text = (items: string[]) => Buffer.from(items.map((line) => `${line}\n`).join(''));
    if (captions.length > 0) await writeFileAtomically(captionsIndexPath(directory, connection), text(captions));
    await writeFileAtomically(indexPath, text(fetched));
  }
};
