'use client';

import { useEffect, useRef, useState } from 'react';
import type Hls from 'hls.js';
import { useAnalyticsMonitoring } from '../hooks/use-analytics-player';
import { chooseSubtitles, NO_ALTERNATE_TRACKS, watchAlternateTracks, type AlternateTracks } from './alternate-tracks';
import { monitorPlayback, type PlaybackAnalytics } from './playback-monitoring';
import { PlayerMenu } from './player-menu';

type Level = { index: number; label: string };

// Preview player: hls.js (loaded on demand, so it is not in the dashboard's main bundle) with a
// quality menu listing the ladder, and audio and subtitles menus when the asset has more than one
// audio track or any subtitles. Hls.isSupported() is checked first because Chromium also claims
// native HLS support it does not have. Playback is reported to Keyframe's own collector with
// mux-embed once the server has said where that is (if it cannot say, the preview plays unreported).
export function HlsPlayer({
  src,
  label = 'Asset preview',
  onTimeUpdate,
  onFatalError,
  autoPlay = false,
  analytics = {},
}: {
  src: string;
  /** What the view is reported as (video_id, video_title, stream type). */
  analytics?: PlaybackAnalytics;
  label?: string;
  /** Starts on its own (muted): a live preview shows what is being broadcast now. */
  autoPlay?: boolean;
  onTimeUpdate?: (seconds: number) => void;
  /** A live playlist can fail while its first segments are still being made; the caller may start again. */
  onFatalError?: () => void;
}) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const hlsRef = useRef<Hls | null>(null);
  const [levels, setLevels] = useState<Level[]>([]);
  const [level, setLevel] = useState(-1);
  const [tracks, setTracks] = useState<AlternateTracks>(NO_ALTERNATE_TRACKS);
  const [error, setError] = useState<string>();
  // Read through a ref so a new callback from the parent does not restart playback.
  const onFatalErrorRef = useRef(onFatalError);
  const analyticsRef = useRef(analytics);
  useEffect(() => {
    onFatalErrorRef.current = onFatalError;
    analyticsRef.current = analytics;
  }, [onFatalError, analytics]);
  const monitoring = useAnalyticsMonitoring();
  const monitoringSettled = !monitoring.isPending;
  const monitoringConfig = monitoring.data;

  useEffect(() => {
    const video = videoRef.current;
    if (!video || !monitoringSettled) return;
    let cancelled = false;
    let stopMonitoring: (() => void) | undefined;
    void Promise.all([import('hls.js'), monitoringConfig ? import('mux-embed') : undefined]).then(([{ default: HlsClass }, muxEmbed]) => {
      if (cancelled) return;
      const monitor = (hls?: Hls) => {
        if (muxEmbed && monitoringConfig) {
          stopMonitoring = monitorPlayback(muxEmbed.default, video, { config: monitoringConfig, analytics: analyticsRef.current, hls, Hls: HlsClass });
        }
      };
      if (!HlsClass.isSupported()) {
        monitor();
        video.src = src;
        return;
      }
      const hls = new HlsClass();
      hlsRef.current = hls;
      monitor(hls);
      hls.on(HlsClass.Events.MANIFEST_PARSED, (_event, data) => {
        setLevels(
          data.levels
            .map((item, index) => ({ index, label: `${item.height}p${item.bitrate ? ` · ${Math.round(item.bitrate / 1000)} kb/s` : ''}` }))
            .reverse(),
        );
      });
      watchAlternateTracks(hls, HlsClass.Events, setTracks);
      hls.on(HlsClass.Events.ERROR, (_event, data) => {
        if (!data.fatal) return;
        setError(`Playback failed: ${data.details}`);
        onFatalErrorRef.current?.();
      });
      hls.loadSource(src);
      hls.attachMedia(video);
    });
    return () => {
      cancelled = true;
      stopMonitoring?.();
      hlsRef.current?.destroy();
      hlsRef.current = null;
      setTracks(NO_ALTERNATE_TRACKS);
    };
  }, [src, monitoringSettled, monitoringConfig]);

  const chooseLevel = (index: number) => {
    setLevel(index);
    if (hlsRef.current) hlsRef.current.currentLevel = index;
  };
  const chooseAudio = (index: number) => {
    if (hlsRef.current) hlsRef.current.audioTrack = index;
  };
  const chooseSubtitleTrack = (index: number) => {
    if (hlsRef.current) chooseSubtitles(hlsRef.current, index);
  };

  return (
    <div className="space-y-2">
      <video
        ref={videoRef}
        controls
        playsInline
        muted
        autoPlay={autoPlay}
        className="aspect-video w-full rounded-lg bg-black"
        aria-label={label}
        data-testid="preview-video"
        onTimeUpdate={(event) => onTimeUpdate?.(event.currentTarget.currentTime)}
      />
      <div className="flex flex-wrap items-center gap-3">
        <PlayerMenu label="Quality" value={level} onChange={chooseLevel}>
          <option value={-1}>Auto</option>
          {levels.map((item) => (
            <option key={item.index} value={item.index}>
              {item.label}
            </option>
          ))}
        </PlayerMenu>
        {tracks.audio.length > 1 && (
          <PlayerMenu label="Audio" value={tracks.audioTrack} onChange={chooseAudio}>
            {tracks.audio.map((item) => (
              <option key={item.index} value={item.index}>
                {item.label}
              </option>
            ))}
          </PlayerMenu>
        )}
        {tracks.subtitles.length > 0 && (
          <PlayerMenu label="Subtitles" value={tracks.subtitleTrack} onChange={chooseSubtitleTrack}>
            <option value={-1}>Off</option>
            {tracks.subtitles.map((item) => (
              <option key={item.index} value={item.index}>
                {item.label}
              </option>
            ))}
          </PlayerMenu>
        )}
        {error && (
          <p role="alert" className="text-sm text-red-700">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}
