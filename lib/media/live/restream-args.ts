import { streamCopyOutputArgs } from './stream-copy-output';

// ffmpeg arguments for one simulcast target: the broadcast as published, read back from the node's
// own RTMP server, copied (no re-encode) to the target over RTMP(S) as FLV or over SRT as MPEG-TS.
// ffmpeg reports its progress on stdout, from which the target is seen to be broadcasting.

export type RestreamTarget = { url: string; streamKey: string | null };

/** Where the stream goes: an RTMP(S) URL gets the stream key as its last path element; an SRT URL is complete. */
export const restreamUrlOf = ({ url, streamKey }: RestreamTarget): string => {
  if (url.startsWith('srt:') || !streamKey) return url;
  return `${url.replace(/\/+$/, '')}/${streamKey}`;
};

/** Seconds between ffmpeg's progress reports. */
export const RESTREAM_PROGRESS_SECONDS = 0.5;
// A target that stops reading (a stalled connection) ends the restream after this long, instead of
// holding the broadcast's reader open.
const TARGET_WRITE_TIMEOUT_MICROSECONDS = 10_000_000;

export const buildRestreamArgs = ({ readUrl, target }: { readUrl: string; target: RestreamTarget }): string[] => [
  '-hide_banner',
  '-nostdin',
  '-v',
  'error',
  '-nostats',
  '-progress',
  'pipe:1',
  '-stats_period',
  String(RESTREAM_PROGRESS_SECONDS),
  '-i',
  readUrl,
  '-rw_timeout',
  String(TARGET_WRITE_TIMEOUT_MICROSECONDS),
  ...streamCopyOutputArgs(restreamUrlOf(target)),
];
