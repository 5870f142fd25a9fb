import { readFragmentTimings, readInitTracks, readTrackDefaults } from '../../lib/media/live/fragment-timing';
import { parseMediaPlaylist } from './live-playlists';
import type { ProgressSample } from './live-processes';
import { round } from '../stats';

// An independent check of EXT-X-PROGRAM-DATE-TIME, on which the latency numbers rest: the first
// segment's date against the publisher's own clock. The publisher (ffmpeg -re) reports through
// -progress how much media it has sent by when; with -re that is real time from an origin (the wall
// clock at which it sent media time 0), taken as the earliest `report time − media time` of its
// progress blocks. The frame of media time t went out at origin + t, and the first frame's time is
// read from the segment itself (its tfdt and composition offset; the packager keeps the input's
// timestamps). A right date reads origin + t plus the ingest's few milliseconds; a packager that
// joined the publisher late and dated a later frame as if it were the first shows a negative error.

export type ProgramDateTimeCheck = {
  /** First segment's EXT-X-PROGRAM-DATE-TIME − the publisher's spawn (Date.now() just before). */
  pdtMinusSpawnMs: number;
  /** When the publisher sent media time 0, from its progress reports, − its spawn (start-up, RTMP connect and publish). */
  originMinusSpawnMs: number | null;
  /** Presentation time of the first video frame of that segment, in the publisher's media clock. */
  firstFrameMediaSeconds: number | null;
  /** The first segment's date − when its first frame was sent (origin + its media time): ≥ 0 and small when right. */
  errorMs: number | null;
};

const fetchBytes = async (url: string): Promise<Buffer> => {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
};

export const checkProgramDateTime = async ({
  mediaPlaylistUrl,
  spawnedAtMs,
  progress,
}: {
  mediaPlaylistUrl: string;
  spawnedAtMs: number;
  progress: readonly ProgressSample[];
}): Promise<ProgramDateTimeCheck> => {
  const playlist = await (await fetch(mediaPlaylistUrl, { signal: AbortSignal.timeout(10_000) })).text();
  const first = parseMediaPlaylist(playlist)[0];
  if (!first || first.programDateTimeMs === null) throw new Error(`no dated segment in ${mediaPlaylistUrl}`);
  const pdtMinusSpawnMs = first.programDateTimeMs - spawnedAtMs;
  const mapUri = /#EXT-X-MAP:URI="([^"]+)"/.exec(playlist)?.[1];
  const segmentUri = playlist.split('\n').map((line) => line.trim()).find((line) => line && !line.startsWith('#'));
  let firstFrameMediaSeconds: number | null = null;
  if (mapUri && segmentUri) {
    const init = await fetchBytes(new URL(mapUri, mediaPlaylistUrl).toString());
    const segment = await fetchBytes(new URL(segmentUri, mediaPlaylistUrl).toString());
    const video = readInitTracks(init).find((track) => track.kind === 'video');
    const timing = video ? readFragmentTimings(segment, readTrackDefaults(init)).find((entry) => entry.trackId === video.trackId) : undefined;
    if (video && timing) firstFrameMediaSeconds = round(Number(timing.firstPresentationTime) / video.timescale, 3);
  }
  // A report is read a little after it was written, never before: the earliest estimate is the best.
  const origins = progress.filter((sample) => sample.outSeconds > 0).map((sample) => sample.atMs - sample.outSeconds * 1000);
  const originMs = origins.length > 0 ? Math.min(...origins) : null;
  return {
    pdtMinusSpawnMs,
    originMinusSpawnMs: originMs === null ? null : Math.round(originMs - spawnedAtMs),
    firstFrameMediaSeconds,
    errorMs: firstFrameMediaSeconds === null || originMs === null ? null : Math.round(first.programDateTimeMs - (originMs + firstFrameMediaSeconds * 1000)),
  };
};
