import { describe, expect, it } from 'vitest';
import { ViewerStreams, type TrackKind, type ViewerStream } from './viewer-streams';

// The plan's 2 s, 2 s, then 4 s segments.
const startOf = (index: number) => (index < 2 ? index * 2 : 4 + (index - 2) * 4);

describe('ViewerStreams', () => {
  const at = 1_000_000;
  const note = (streams: ViewerStreams, { client = 'a', asset = 'asset', rung = '540p', index = 0, now = at, track = 'video' as TrackKind } = {}) =>
    streams.note({ clientKey: client, assetId: asset, track, rung, index, start: startOf(index), now });

  it("makes a starting player's first segment due now, and later ones due when its buffer would run out", () => {
    const streams = new ViewerStreams();
    const first = note(streams, { index: 0 });
    expect(first.isNew).toBe(true);
    expect(first.deadline).toBe(at);
    // 0.5 s later it asks for segment 1 (starts at 2 s): its playhead is at most 0.5 s in.
    const second = note(streams, { index: 1, now: at + 500 });
    expect(second.isNew).toBe(false);
    expect(second.stream).toBe(first.stream);
    expect(second.deadline).toBe(at + 500 + 1_500);
    // A prefetch of segment 4 (starts at 12 s), asked at the same moment.
    expect(streams.deadlineFor(second.stream, startOf(4), at + 500)).toBe(at + 500 + 11_500);
  });

  it('never lets the estimated playhead pass what the player has fetched (a stalled player)', () => {
    const streams = new ViewerStreams();
    note(streams, { index: 0 });
    // Segment 1 is asked for 10 s later: the player stalled at 2 s (due now), and segment 2 (at 4 s),
    // asked 0.1 s after that, is due when the 2 s of segment 1 have played, not overdue by 6 s.
    const late = note(streams, { index: 1, now: at + 10_000 });
    expect(late.deadline).toBe(at + 10_000);
    const next = note(streams, { index: 2, now: at + 10_100 });
    expect(next.deadline).toBe(at + 10_100 + 1_900);
  });

  it('keeps viewers that share an address and User-Agent apart by the order of their requests', () => {
    const streams = new ViewerStreams();
    const early = note(streams, { index: 0 });
    for (let index = 1; index <= 5; index++) note(streams, { index, now: at + index * 100 });
    const joining = note(streams, { index: 0, now: at + 1_000 });
    expect(joining.isNew).toBe(true);
    expect(joining.deadline).toBe(at + 1_000);
    const continuing = note(streams, { index: 6, now: at + 1_100 });
    expect(continuing.stream).toBe(early.stream);
    expect(note(streams, { index: 1, now: at + 1_200 }).stream).toBe(joining.stream);
    // Another client is another viewer even at the same place.
    expect(note(streams, { client: 'b', index: 2, now: at + 1_300 }).isNew).toBe(true);
  });

  it('follows a viewer across a rung switch, whether it asks for the next index or the same one again', () => {
    const streams = new ViewerStreams();
    const start = note(streams, { index: 3, rung: '720p' });
    const next = note(streams, { index: 4, rung: '360p', now: at + 200 });
    expect(next.stream).toBe(start.stream);
    expect(next.switchedFrom).toBe('720p');
    const again = note(streams, { index: 4, rung: '540p', now: at + 300 });
    expect(again.stream).toBe(start.stream);
    expect(again.switchedFrom).toBe('360p');
    expect(note(streams, { index: 5, rung: '540p', now: at + 400 }).switchedFrom).toBeNull();
  });

  it('tracks audio apart from video', () => {
    const streams = new ViewerStreams();
    const video = note(streams, { index: 0 });
    const audio = note(streams, { index: 1, track: 'audio', rung: 'audio' });
    expect(audio.isNew).toBe(true);
    expect(audio.stream).not.toBe(video.stream);
  });

  it('forgets a viewer that has gone silent and says so', () => {
    const gone: ViewerStream[] = [];
    const streams = new ViewerStreams({ goneAfterMs: 30_000, onGone: (stream) => gone.push(stream) });
    const first = note(streams, { index: 0 });
    expect(streams.activeStreams(at + 29_000)).toHaveLength(1);
    expect(streams.activeStreams(at + 30_000)).toHaveLength(0);
    expect(gone).toEqual([first.stream]);
    // Coming back later is a new stream.
    expect(note(streams, { index: 1, now: at + 31_000 }).isNew).toBe(true);
  });

  it('tells a stream that left a rung apart from players of one client playing two rungs in step', () => {
    const streams = new ViewerStreams();
    // One player: 540p up to segment 2, then 270p from segment 3. It is done with 540p.
    for (let index = 0; index <= 2; index++) note(streams, { index, now: at + index * 100 });
    const switched = note(streams, { index: 3, rung: '270p', now: at + 300 });
    expect(switched.switchedFrom).toBe('540p');
    expect(streams.stillPlayedBesides(switched.stream, '540p')).toBe(false);
    // Two players behind one address in step: segment 4 asked on both rungs. Whichever the stream
    // now seems to be on, the other rung is still played.
    note(streams, { index: 4, rung: '540p', now: at + 400 });
    const other = note(streams, { index: 4, rung: '270p', now: at + 410 });
    expect(other.switchedFrom).toBe('540p');
    expect(streams.stillPlayedBesides(other.stream, '540p')).toBe(true);
  });

  it('tells players playing in step from a client fetching one segment of every rung', () => {
    const streams = new ViewerStreams();
    // A check: segment 0 of each rung in turn. It never moves on, so it never plays.
    note(streams, { client: 'check', index: 0, rung: '270p' });
    expect(note(streams, { client: 'check', index: 0, rung: '540p', now: at + 100 }).playing).toBe(false);
    // Players behind one address: segments 0 and 1 on 540p, then segment 1 again on 720p.
    note(streams, { index: 0 });
    const moving = note(streams, { index: 1, now: at + 100 });
    expect(moving.playing).toBe(false);
    expect(moving.advanced).toBe(true);
    const climbing = note(streams, { index: 1, rung: '720p', now: at + 110 });
    expect(climbing).toMatchObject({ advanced: false, playing: true, switchedFrom: '540p' });
  });

  it('takes back a refused request: the next player of the client continues from where the stream was', () => {
    const streams = new ViewerStreams();
    note(streams, { index: 0 });
    const refused = note(streams, { index: 1, rung: '720p', now: at + 2_000 });
    expect(refused.switchedFrom).toBe('540p');
    streams.revert(refused);
    expect(refused.stream).toMatchObject({ rung: '540p', lastIndex: 0, fetchedUntil: 0, hasAdvanced: false });
    expect(streams.stillPlayedBesides(refused.stream, '720p')).toBe(false);
    // Another player behind the address asks for the refused rung: a switch as it moves on, not a refetch.
    const next = note(streams, { index: 1, rung: '720p', now: at + 2_010 });
    expect(next).toMatchObject({ stream: refused.stream, advanced: true, switchedFrom: '540p' });
    // A refusal decided after another request of the stream was noted leaves that one's news alone.
    const late = note(streams, { index: 2, rung: '1080p', now: at + 4_000 });
    const meanwhile = note(streams, { index: 2, rung: '720p', now: at + 4_050 });
    streams.revert(late);
    expect(meanwhile.stream).toMatchObject({ rung: '720p', lastIndex: 2, lastRequestAt: at + 4_050 });
    // A refused first request leaves no stream behind.
    const first = note(streams, { client: 'b', index: 0 });
    streams.revert(first);
    expect(note(streams, { client: 'b', index: 0, now: at + 10 }).isNew).toBe(true);
    expect(streams.activeStreams(at + 20).filter((stream) => stream.clientKey === 'b')).toHaveLength(1);
  });
});
