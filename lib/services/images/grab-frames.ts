import { buildFrameGrabArgs, buildTileStripArgs, rgbFrameBytes } from '../../media/images/image-args';
import { clampToVideo, frameSeekSeconds } from '../../media/images/frame-time';
import { splitRgbFrames } from '../../media/images/raw-frames';
import { chooseTileExtraction, type StoryboardLayout } from '../../media/images/storyboard-layout';
import type { Size } from '../../media/images/thumbnail-geometry';
import type { VideoSource } from './image-target';
import { runImageFfmpeg, type ImageWorkLane } from './run-image-ffmpeg';

// Frames as raw RGB at a given size, decoded from the source file (never from the lower-quality
// renditions, which may not even exist yet).

const FALLBACK_WINDOW_SECONDS = 2;

/** The frame on screen at `time` (times past the end give the last frame). */
export const grabFrame = async ({
  source,
  time,
  size,
  signal,
  lane,
}: {
  source: VideoSource;
  time: number;
  size: Size;
  signal: AbortSignal;
  lane: ImageWorkLane;
}): Promise<Buffer> => {
  const frameBytes = rgbFrameBytes(size);
  const seekSeconds = frameSeekSeconds(time, source);
  const exact = await runImageFfmpeg({ args: buildFrameGrabArgs({ inputPath: source.path, seekSeconds, size, frameLimit: 1, overlays: source.overlays, sourceColour: source.sourceColour }), signal, lane });
  if (exact.length >= frameBytes) return exact.subarray(0, frameBytes);
  // Nothing at or after the seek point: the probed duration overstated where the last frame is
  // (variable frame rate, edit lists). Decode the seconds up to `time` and keep the last frame.
  const shown = clampToVideo(time, source);
  const windowStart = Math.max(0, shown - FALLBACK_WINDOW_SECONDS);
  const args = buildFrameGrabArgs({
    inputPath: source.path,
    seekSeconds: windowStart,
    size,
    windowSeconds: shown - windowStart + 0.001,
    overlays: source.overlays, sourceColour: source.sourceColour,
  });
  const last = await runImageFfmpeg({ args, signal, lane, keepLastBytes: frameBytes });
  if (last.length < frameBytes) throw new Error(`ffmpeg decoded no frame near ${time} s`);
  return last;
};

const PARALLEL_TILE_GRABS = 2;

type TileGrab = { source: VideoSource; layout: StoryboardLayout; signal: AbortSignal };

const grabExactTile = ({ source, layout, signal }: TileGrab, time: number) =>
  grabFrame({ source, time, size: layout.tile, signal, lane: 'storyboard' });

const grabKeyframeTile = async (grab: TileGrab, time: number) => {
  const { source, layout, signal } = grab;
  const args = buildFrameGrabArgs({
    inputPath: source.path,
    seekSeconds: time,
    size: layout.tile,
    frameLimit: 1,
    keyframesOnly: true,
    overlays: source.overlays, sourceColour: source.sourceColour,
  });
  const keyframe = await runImageFfmpeg({ args, signal, lane: 'storyboard' });
  const frameBytes = rgbFrameBytes(layout.tile);
  // No keyframe after the tile's start (the last GOP): its exact frame instead.
  return keyframe.length >= frameBytes ? keyframe.subarray(0, frameBytes) : grabExactTile(grab, time);
};

const grabInOnePass = async ({ source, layout, signal }: TileGrab): Promise<Buffer[]> => {
  const output = await runImageFfmpeg({ args: buildTileStripArgs({ inputPath: source.path, layout, overlays: source.overlays, sourceColour: source.sourceColour }), signal, lane: 'storyboard' });
  const frames = splitRgbFrames(output, layout.tile);
  const last = frames.at(-1);
  if (!last) throw new Error('ffmpeg decoded no frames for the storyboard');
  // The fps filter can end a tile short of the count at the very end; its last frame stands in.
  return layout.tiles.map((_, index) => frames[index] ?? last);
};

/** One raw frame per storyboard tile, in tile order (see chooseTileExtraction for the strategy). */
export const grabStoryboardTiles = async (grab: TileGrab): Promise<Buffer[]> => {
  const strategy = chooseTileExtraction(grab.layout);
  if (strategy === 'single-pass') return grabInOnePass(grab);
  const grabTile = strategy === 'keyframe-seeks' ? grabKeyframeTile : grabExactTile;
  const tiles: Buffer[] = [];
  let next = 0;
  const grabInTurn = async () => {
    for (let index = next++; index < grab.layout.tiles.length; index = next++) {
      tiles[index] = await grabTile(grab, grab.layout.tiles[index]?.start ?? 0);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_TILE_GRABS }, grabInTurn));
  return tiles;
};
