import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { forgetAudioSegmentsWanted, noteAudioSegmentWanted, paceAudioEncode, PAUSE_AHEAD_SEGMENTS, RESUME_AHEAD_SEGMENTS, shouldPauseAudio } from './audio-pacing';

describe('shouldPauseAudio', () => {
  const decide = (written: number, furthestRequested: number, { videoWorkPending = true, paused = false } = {}) =>
    shouldPauseAudio({ written, furthestRequested, videoWorkPending, paused });

  it('pauses once more than PAUSE_AHEAD_SEGMENTS are written beyond the furthest asked for, while video work is pending', () => {
    expect(decide(3 + PAUSE_AHEAD_SEGMENTS + 1, 3)).toBe(false);
    expect(decide(3 + PAUSE_AHEAD_SEGMENTS + 2, 3)).toBe(true);
  });

  it('continues at RESUME_AHEAD_SEGMENTS, not before (no flapping around one threshold)', () => {
    expect(decide(3 + RESUME_AHEAD_SEGMENTS + 2, 3, { paused: true })).toBe(true);
    expect(decide(3 + RESUME_AHEAD_SEGMENTS + 1, 3, { paused: true })).toBe(false);
  });

  it('never pauses with idle video encoders, before any viewer asked, or for a viewer who seeked past it', () => {
    expect(decide(100, 3, { videoWorkPending: false })).toBe(false);
    expect(decide(100, -1)).toBe(false);
    expect(decide(10, 60, { paused: true })).toBe(false);
  });
});

const stateOf = (pid: number): string => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.charAt(0);

describe('paceAudioEncode (a real process group)', () => {
  const children: number[] = [];
  afterEach(() => {
    for (const pid of children.splice(0)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    forgetAudioSegmentsWanted('asset-a');
  });

  it('stops the process while far ahead of the viewers and continues it when video work is done; reports the paused time', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    children.push(child.pid!);
    let videoPending = true;
    noteAudioSegmentWanted('asset-a', 2);
    const pacer = paceAudioEncode({ trackKey: 'asset-a', pid: child.pid!, written: () => 40, videoWorkPending: () => videoPending });
    pacer.check();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stateOf(child.pid!), 'stopped').toBe('T');

    videoPending = false;
    pacer.check();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stateOf(child.pid!), 'running again (sleeping in sleep(1))').toBe('S');

    videoPending = true;
    pacer.check();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stateOf(child.pid!)).toBe('T');
    const pausedMs = pacer.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stateOf(child.pid!), 'stop() leaves it running').toBe('S');
    expect(pausedMs).toBeGreaterThanOrEqual(140);
  });

  it('a viewer asking near the end of what is written makes it continue', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    children.push(child.pid!);
    noteAudioSegmentWanted('asset-a', 0);
    const pacer = paceAudioEncode({ trackKey: 'asset-a', pid: child.pid!, written: () => 20, videoWorkPending: () => true });
    pacer.check();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stateOf(child.pid!)).toBe('T');
    noteAudioSegmentWanted('asset-a', 17);
    pacer.check();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stateOf(child.pid!)).toBe('S');
    pacer.stop();
  });
});
