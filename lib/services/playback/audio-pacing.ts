import type { LRUCache } from 'lru-cache';
import { playbackState } from './playback-state';

// An audio track is one encode of the whole track at many times real time (see audio-track.ts).
// Once a viewer waits for it, it runs beside the video encoders, and for a long track that took a
// third of a core for the first ten seconds of playback: exactly when the viewer's first video
// segments were being encoded on a small machine. Players buffer about 30 s ahead, so the encode
// is paused (SIGSTOP) while it is far ahead of the furthest segment any viewer asked for and video
// work is waiting or running, and continued (SIGCONT) as soon as a viewer comes near, seeks past
// it, or the video encoders fall idle. The bytes are the same either way.

/** Segments (4 s each) written beyond the furthest asked for before the encode pauses. */
export const PAUSE_AHEAD_SEGMENTS = 10;
/** It continues when no more than this many are left ahead (hysteresis, so it does not flap). */
export const RESUME_AHEAD_SEGMENTS = 6;

export const shouldPauseAudio = ({
  written,
  furthestRequested,
  videoWorkPending,
  paused,
}: {
  /** Segments written so far. */
  written: number;
  /** The highest segment index a viewer asked for (−1: none yet). */
  furthestRequested: number;
  videoWorkPending: boolean;
  paused: boolean;
}): boolean => {
  if (!videoWorkPending || furthestRequested < 0) return false;
  const ahead = written - 1 - furthestRequested;
  return ahead > (paused ? RESUME_AHEAD_SEGMENTS : PAUSE_AHEAD_SEGMENTS);
};

declare module './playback-state' {
  interface PlaybackState {
    /** The highest audio segment index a viewer asked for, per track. */
    audioSegmentsWanted: LRUCache<string, number>;
  }
}

const furthest = () => playbackState().audioSegmentsWanted;

// Keyed by track (`{assetId}/{rendition}`, see audioEncodeKey): an asset's audio tracks are
// encoded and watched separately, and a viewer switching tracks asks the new one for its position.

/** A viewer asked for audio segment `index` of the track. */
export const noteAudioSegmentWanted = (trackKey: string, index: number): void => {
  if (index > (furthest().get(trackKey) ?? -1)) furthest().set(trackKey, index);
};

export const furthestAudioSegmentWanted = (trackKey: string): number => furthest().get(trackKey) ?? -1;

/** The track is complete (or gone): nothing more to pace. */
export const forgetAudioSegmentsWanted = (trackKey: string): void => {
  furthest().delete(trackKey);
};

const CHECK_INTERVAL_MS = 200;

export type AudioPacer = {
  /** Decides again now (a viewer asked for a segment). */
  check: () => void;
  /** Continues the encode if it is paused and stops pacing; returns how long it was paused in all (ms). */
  stop: () => number;
};

/** Paces the running audio encode whose process group leader is `pid` (see above). */
export const paceAudioEncode = ({
  trackKey,
  pid,
  written,
  videoWorkPending,
}: {
  trackKey: string;
  pid: number;
  written: () => number;
  videoWorkPending: () => boolean;
}): AudioPacer => {
  let paused = false;
  let pausedAt = 0;
  let pausedMs = 0;
  const send = (signal: 'SIGSTOP' | 'SIGCONT') => {
    try {
      process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  };
  const setPaused = (pause: boolean) => {
    if (pause === paused) return;
    paused = pause;
    if (pause) {
      pausedAt = performance.now();
      send('SIGSTOP');
    } else {
      pausedMs += performance.now() - pausedAt;
      send('SIGCONT');
    }
  };
  const check = () =>
    setPaused(shouldPauseAudio({ written: written(), furthestRequested: furthestAudioSegmentWanted(trackKey), videoWorkPending: videoWorkPending(), paused }));
  const timer = setInterval(check, CHECK_INTERVAL_MS);
  timer.unref();
  return {
    check,
    stop: () => {
      clearInterval(timer);
      setPaused(false);
      return pausedMs;
    },
  };
};
