'use client';

import { useEffect, useRef, useState } from 'react';
import type Hls from 'hls.js';
import { chooseSubtitles, NO_ALTERNATE_TRACKS, watchAlternateTracks, type AlternateTracks } from './alternate-tracks';
import { PlayerMenu } from './player-menu';

type Level = { index: number; label: string };

// Preview player: hls.js (loaded on demand, so it is not in the dashboard's main bundle) with a
// quality menu listing the ladder, and audio and subtitles menus when the asset has more than one
// audio track or any subtitles. Hls.isSupported() is checked first because Chromium also claims
// native HLS support it does not have.
export function HlsPlayer({ src, onTimeUpdate }: { src: string; onTimeUpdate?: (seconds: number) => void }) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const hlsRef = useRef<Hls | null>(null);
  const [levels, setLevels] = useState<Level[]>([]);
  const [level, setLevel] = useState(-1);
  const [tracks, setTracks] = useState<AlternateTracks>(NO_ALTERNATE_TRACKS);
  const [error, setError] = useState<string>();

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    let cancelled = false;
    void import('hls.js').then(({ default: HlsClass }) => {
      if (cancelled) return;
      if (!HlsClass.isSupported()) {
        video.src = src;
        return;
      }
      const hls = new HlsClass();
      hlsRef.current = hls;
      hls.on(HlsClass.Events.MANIFEST_PARSED, (_event, data) => {
        setLevels(
          data.levels
            .map((item, index) => ({ index, label: `${item.height}p${item.bitrate ? ` · ${Math.round(item.bitrate / 1000)} kb/s` : ''}` }))
            .reverse(),
        );
      });
      watchAlternateTracks(hls, HlsClass.Events, setTracks);
      hls.on(HlsClass.Events.ERROR, (_event, data) => {
        if (data.fatal) setError(`Playback failed: ${data.details}`);
      });
      hls.loadSource(src);
      hls.attachMedia(video);
    });
    return () => {
      cancelled = true;
      hlsRef.current?.destroy();
      hlsRef.current = null;
      setTracks(NO_ALTERNATE_TRACKS);
    };
  }, [src]);

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
        className="aspect-video w-full rounded-lg bg-black"
        aria-label="Asset preview"
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
