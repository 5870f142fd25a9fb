import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DeadlineScheduler, type FinishedWork, type WorkAttempt, type WorkClass } from './deadline-scheduler';

type Gate = { promise: Promise<void>; open: () => void };
const gate = (): Gate => {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
};

// Lets queued promise callbacks (slot hand-overs) run.
const settle = (): Promise<void> => sleep(0);

// Work that runs until finished (then every attempt, current or later, completes), or until its
// attempt is aborted (like an ffmpeg being killed).
const controllable = () => {
  const attempts: WorkAttempt[] = [];
  const release = gate();
  const run = async (attempt: WorkAttempt) => {
    attempts.push(attempt);
    await new Promise<void>((resolve, reject) => {
      void release.promise.then(resolve);
      attempt.signal.addEventListener('abort', () => reject(attempt.signal.reason as Error), { once: true });
    });
  };
  return { run, attempts, finish: release.open };
};

type Kind = 'onDemand' | 'prefetch' | 'audio' | 'background';

const recorder = () => {
  const started: string[] = [];
  const record = (name: string) => async () => {
    started.push(name);
    await settle();
  };
  return { started, record };
};

describe('DeadlineScheduler', () => {
  it('never runs more than `slots` jobs, and completes them all', async () => {
    const scheduler = new DeadlineScheduler<Kind>({ slots: 3 });
    let running = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        scheduler.submit({
          kind: 'onDemand',
          workClass: 'deadline',
          deadline: i % 7,
          run: async () => {
            running++;
            peak = Math.max(peak, running);
            await sleep(1 + (i % 3));
            running--;
            return i;
          },
        }).done,
      ),
    );
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(peak).toBe(3);
    expect(scheduler.running()).toBe(0);
    expect(scheduler.queued()).toBe(0);
  });

  it('runs deadline work earliest deadline first, FIFO among equal deadlines, whatever the order of arrival', async () => {
    const scheduler = new DeadlineScheduler<Kind>({ slots: 1 });
    const blocker = gate();
    const { started, record } = recorder();
    const all = [scheduler.submit({ kind: 'onDemand', workClass: 'deadline', run: () => blocker.promise }).done];
    for (const [deadline, name] of [
      [5_000, 'viewer-c'],
      [1_000, 'viewer-a'],
      [3_000, 'viewer-b1'],
      [3_000, 'viewer-b2'],
      [500, 'starting-viewer'],
    ] as const) {
      all.push(scheduler.submit({ kind: 'onDemand', workClass: 'deadline', deadline: Date.now() + deadline, run: record(name) }).done);
    }
    expect(scheduler.queued()).toBe(5);
    blocker.open();
    await Promise.all(all);
    expect(started).toEqual(['starting-viewer', 'viewer-a', 'viewer-b1', 'viewer-b2', 'viewer-c']);
  });

  it('puts deadline work before speculative before idle work, whatever their deadlines', async () => {
    const scheduler = new DeadlineScheduler<Kind>({ slots: 1 });
    const blocker = gate();
    const { started, record } = recorder();
    const all = [scheduler.submit({ kind: 'onDemand', workClass: 'deadline', run: () => blocker.promise }).done];
    const submit = (name: string, workClass: WorkClass, deadline: number) =>
      all.push(scheduler.submit({ kind: 'prefetch', workClass, deadline, run: record(name) }).done);
    submit('idle-1', 'idle', 0);
    submit('prefetch-late', 'speculative', 9_000);
    submit('viewer-late', 'deadline', 99_000);
    submit('prefetch-early', 'speculative', 1_000);
    submit('idle-2', 'idle', 0);
    blocker.open();
    await Promise.all(all);
    expect(started).toEqual(['viewer-late', 'prefetch-early', 'prefetch-late', 'idle-1', 'idle-2']);
  });

  it('runs prefetches only on free capacity and on all slots but one, so a viewer gets a slot at once', async () => {
    const scheduler = new DeadlineScheduler<Kind>({ slots: 3 });
    const prefetches = Array.from({ length: 4 }, () => controllable());
    const done = prefetches.map(
      (work, i) => scheduler.submit({ kind: 'prefetch', workClass: 'speculative', deadline: Date.now() + 1_000 * i, run: work.run }).done,
    );
    expect(prefetches.map((work) => work.attempts.length)).toEqual([1, 1, 0, 0]);
    expect(scheduler.running()).toBe(2);

    const viewers = [controllable(), controllable()];
    const viewerDone = viewers.map((viewer) => scheduler.submit({ kind: 'onDemand', workClass: 'deadline', run: viewer.run }).done);
    expect(viewers[0]?.attempts, 'the first viewer starts at once, in the slot kept free').toHaveLength(1);
    expect(viewers[1]?.attempts, 'the second waits for a slot').toHaveLength(0);

    // A freed slot goes to the waiting viewer, not to the next prefetch.
    prefetches[0]?.finish();
    await done[0];
    await settle();
    expect(viewers[1]?.attempts).toHaveLength(1);
    expect(prefetches[2]?.attempts).toHaveLength(0);
    // With no viewer waiting, the next freed slot takes the next prefetch, beside the viewers'.
    viewers[0]?.finish();
    await viewerDone[0];
    await settle();
    expect(prefetches[2]?.attempts).toHaveLength(1);
    for (const work of [...prefetches, ...viewers]) work.finish();
    await Promise.all([...done, ...viewerDone]);
  });

  it('runs idle work only on otherwise idle slots, preempts it for a viewer, and runs it again afterwards', async () => {
    const finished: FinishedWork<Kind>[] = [];
    const scheduler = new DeadlineScheduler<Kind>({ slots: 1, onFinish: (work) => finished.push(work) });
    const background = controllable();
    const backgroundDone = scheduler.submit({ kind: 'background', workClass: 'idle', run: background.run }).done;
    expect(background.attempts).toHaveLength(1);
    expect(background.attempts[0]?.background, 'an idle attempt is told to run at the lowest priority').toBe(true);

    const viewer = controllable();
    const viewerDone = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', run: viewer.run }).done;
    expect(background.attempts[0]?.signal.aborted, 'the idle attempt is killed for the viewer').toBe(true);
    await settle();
    expect(viewer.attempts).toHaveLength(1);
    expect(scheduler.countByKind().queued.get('background'), 'the preempted work is queued again').toBe(1);

    viewer.finish();
    await viewerDone;
    await settle();
    expect(background.attempts, 'run again once the slot is idle').toHaveLength(2);
    background.finish();
    await backgroundDone;
    expect(finished.map((work) => [work.kind, work.ok, work.preemptions])).toEqual([
      ['onDemand', true, 0],
      ['background', true, 1],
    ]);
  });

  it('reports each work once when it finishes, with its outcome and the subject it was submitted with', async () => {
    const finished: FinishedWork<Kind, { rung: string }>[] = [];
    const scheduler = new DeadlineScheduler<Kind, { rung: string }>({ slots: 1, onFinish: (work) => finished.push(work) });
    const preempted = controllable();
    const preemptedDone = scheduler.submit({ kind: 'background', workClass: 'idle', subject: { rung: '1440p' }, run: preempted.run }).done;
    const running = controllable();
    const runningWork = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', subject: { rung: '540p' }, run: running.run });
    const queued = scheduler.submit({ kind: 'prefetch', workClass: 'speculative', subject: { rung: '540p' }, run: async () => undefined });
    const failing = scheduler.submit({
      kind: 'onDemand',
      workClass: 'deadline',
      deadline: Date.now() + 60_000,
      run: async () => {
        throw new Error('ffmpeg exited with 1');
      },
    });
    await settle();
    queued.cancel(new Error('nobody wants it'));
    await expect(queued.done).rejects.toThrow('nobody wants it');
    runningWork.cancel(new Error('the viewer went away'));
    await expect(runningWork.done).rejects.toThrow('the viewer went away');
    await expect(failing.done).rejects.toThrow('ffmpeg exited with 1');
    await settle();
    preempted.finish();
    await preemptedDone;
    expect(finished.map((work) => [work.kind, work.subject?.rung, work.outcome, work.preemptions])).toEqual([
      ['prefetch', '540p', 'cancelled', 0],
      ['onDemand', '540p', 'cancelled', 0],
      ['onDemand', undefined, 'error', 0],
      ['background', '1440p', 'ok', 1],
    ]);
  });

  it('preempts idle work for a prefetch only as far as needed', async () => {
    const scheduler = new DeadlineScheduler<Kind>({ slots: 2 });
    const idle = [controllable(), controllable()];
    const idleDone = idle.map((work) => scheduler.submit({ kind: 'background', workClass: 'idle', run: work.run }).done);
    expect(scheduler.running()).toBe(2);
    const prefetch = controllable();
    const prefetchDone = scheduler.submit({ kind: 'prefetch', workClass: 'speculative', run: prefetch.run }).done;
    expect(idle.filter((work) => work.attempts[0]?.signal.aborted)).toHaveLength(1);
    await settle();
    expect(prefetch.attempts).toHaveLength(1);
    prefetch.finish();
    await prefetchDone;
    await settle();
    for (const work of idle) work.finish();
    await Promise.all(idleDone);
    expect(idle.map((work) => work.attempts.length).sort()).toEqual([1, 2]);
  });

  it('drops queued work on cancel without running it, and kills running work', async () => {
    const scheduler = new DeadlineScheduler<Kind>({ slots: 1 });
    const running = controllable();
    const runningWork = scheduler.submit({ kind: 'prefetch', workClass: 'deadline', run: running.run });
    let ran = false;
    const queued = scheduler.submit({
      kind: 'prefetch',
      workClass: 'speculative',
      run: async () => {
        ran = true;
      },
    });
    const left = new Error('the viewer left');
    queued.cancel(left);
    await expect(queued.done).rejects.toBe(left);
    expect(queued.state()).toBe('finished');
    expect(scheduler.queued()).toBe(0);

    const switched = new Error('the viewer switched rungs');
    runningWork.cancel(switched);
    expect(running.attempts[0]?.signal.aborted).toBe(true);
    await expect(runningWork.done).rejects.toBe(switched);
    expect(scheduler.running()).toBe(0);
    expect(ran).toBe(false);
  });

  it('lets a viewer take over a queued prefetch at its deadline, and restarts a low-priority attempt someone now waits for', async () => {
    const scheduler = new DeadlineScheduler<Kind>({ slots: 1 });
    const blocker = controllable();
    const blockerDone = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', deadline: Date.now() + 5_000, run: blocker.run }).done;
    const { started, record } = recorder();
    const other = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', deadline: Date.now() + 3_000, run: record('other-viewer') });
    const prefetch = scheduler.submit({ kind: 'prefetch', workClass: 'speculative', deadline: Date.now() + 9_000, run: record('taken-over') });
    prefetch.hasten('deadline', Date.now() + 1_000, 'onDemand');
    expect(scheduler.countByKind().queued.get('onDemand')).toBe(2);
    blocker.finish();
    await Promise.all([blockerDone, other.done, prefetch.done]);
    expect(started).toEqual(['taken-over', 'other-viewer']);

    const fill = controllable();
    const fillWork = scheduler.submit({ kind: 'background', workClass: 'idle', run: fill.run });
    expect(fill.attempts[0]?.background).toBe(true);
    fillWork.hasten('deadline', Date.now(), 'onDemand');
    await settle();
    expect(fill.attempts.map((attempt) => attempt.background)).toEqual([true, false]);
    fill.finish();
    await fillWork.done;
  });

  it('counts a miss when deadline work finishes after a deadline that was still ahead, not for a viewer already out of buffer', async () => {
    let now = 1_000_000;
    const scheduler = new DeadlineScheduler<Kind>({ slots: 1, now: () => now });
    const late = controllable();
    const lateDone = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', deadline: now + 4_000, run: late.run }).done;
    now += 5_000;
    late.finish();
    await lateDone;
    expect(scheduler.deadlineMisses()).toBe(1);

    const starting = controllable();
    const startingDone = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', deadline: now, run: starting.run }).done;
    now += 800;
    starting.finish();
    await startingDone;
    const onTime = controllable();
    const onTimeDone = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', deadline: now + 4_000, run: onTime.run }).done;
    now += 1_000;
    onTime.finish();
    await onTimeDone;
    expect(scheduler.deadlineMisses()).toBe(1);
    scheduler.recordMiss();
    expect(scheduler.deadlineMisses()).toBe(2);
  });

  it('estimates when new deadline work would start from running work and earlier deadlines queued', () => {
    const now = 1_000_000;
    const scheduler = new DeadlineScheduler<Kind>({ slots: 2, now: () => now });
    expect(scheduler.estimatedStartMs(now)).toBe(0);
    scheduler.submit({ kind: 'onDemand', workClass: 'deadline', costMs: 1_000, run: () => gate().promise });
    scheduler.submit({ kind: 'onDemand', workClass: 'deadline', costMs: 3_000, run: () => gate().promise });
    expect(scheduler.estimatedStartMs(now)).toBe(1_000);
    scheduler.submit({ kind: 'onDemand', workClass: 'deadline', deadline: now + 2_000, costMs: 4_000, run: () => gate().promise });
    // Due earlier than the queued one: it goes first, on the slot free after 1 s.
    expect(scheduler.estimatedStartMs(now + 1_000)).toBe(1_000);
    // Due later: the queued one takes the slot free at 1 s (until 5 s); the other frees at 3 s.
    expect(scheduler.estimatedStartMs(now + 10_000)).toBe(3_000);
    // Idle work gives its slot up at once.
    const idle = new DeadlineScheduler<Kind>({ slots: 1, now: () => now });
    idle.submit({ kind: 'background', workClass: 'idle', costMs: 60_000, run: () => gate().promise });
    expect(idle.estimatedStartMs(now)).toBe(0);
  });

  it("never starves a viewer's audio behind a stream of video nobody waits for", async () => {
    const scheduler = new DeadlineScheduler<Kind>({ slots: 2 });
    const { started, record } = recorder();
    const unwatched: Promise<unknown>[] = [];
    const prefetchVideo = controllable();
    const viewerVideo = controllable();
    // Both slots busy with video, and more video nobody waits for queued: prefetches and
    // background rungs. The audio track, queued after ready as idle work, waits behind them all.
    unwatched.push(scheduler.submit({ kind: 'prefetch', workClass: 'speculative', deadline: Date.now() + 20_000, run: prefetchVideo.run }).done);
    unwatched.push(scheduler.submit({ kind: 'onDemand', workClass: 'deadline', deadline: Date.now() + 8_000, run: viewerVideo.run }).done);
    for (let i = 0; i < 10; i++) {
      unwatched.push(scheduler.submit({ kind: 'prefetch', workClass: 'speculative', deadline: Date.now() + 30_000 + i, run: record(`prefetch-${i}`) }).done);
      unwatched.push(scheduler.submit({ kind: 'background', workClass: 'idle', run: record(`background-${i}`) }).done);
    }
    const audio = scheduler.submit({ kind: 'audio', workClass: 'idle', slotlessWhenUrgent: true, run: record('audio') });
    expect(scheduler.running()).toBe(2);
    await settle();
    expect(started).toEqual([]);

    // A viewer asks for a part of the track not written yet: it starts at once, beside the slots.
    audio.hasten('deadline', Date.now() + 4_000);
    expect(started).toEqual(['audio']);
    expect(scheduler.running()).toBe(3);
    await audio.done;
    expect(started, 'the audio ran before any of the queued unwatched video').toEqual(['audio']);
    prefetchVideo.finish();
    viewerVideo.finish();
    await Promise.all(unwatched);
    expect(started).toHaveLength(21);
  });

  it('tells idle listeners when a slot frees up and nothing is queued', async () => {
    const scheduler = new DeadlineScheduler<Kind>({ slots: 2 });
    let idleCalls = 0;
    const unsubscribe = scheduler.onIdle(() => idleCalls++);
    const work = controllable();
    const done = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', run: work.run }).done;
    expect(scheduler.idleCapacity()).toBe(1);
    work.finish();
    await done;
    expect(idleCalls).toBeGreaterThan(0);
    expect(scheduler.idleCapacity()).toBe(2);
    unsubscribe();
  });

  it('validates its arguments', () => {
    expect(() => new DeadlineScheduler({ slots: 0 })).toThrow(RangeError);
    expect(() => new DeadlineScheduler({ slots: 1.5 })).toThrow(RangeError);
    expect(() => new DeadlineScheduler({ slots: 1 }).submit({ kind: 'x', workClass: 'deadline', deadline: Number.NaN, run: async () => 1 })).toThrow(RangeError);
  });

  describe('work done by another attempt (joinRunning)', () => {
    it('leaves the queue, holds no slot, and ends as the taker says', async () => {
      const scheduler = new DeadlineScheduler<Kind>({ slots: 1 });
      const leader = controllable();
      const first = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', run: leader.run });
      const rider = scheduler.submit({ kind: 'prefetch', workClass: 'speculative', run: async () => 'own run' });
      await settle();
      expect(rider.state()).toBe('queued');
      const handle = rider.joinRunning();
      expect(handle).not.toBeNull();
      expect(rider.state()).toBe('running');
      expect(scheduler.queued()).toBe(0);
      expect(rider.joinRunning(), 'only queued work can be taken over').toBeNull();
      // It holds no slot: other work queues behind the leader alone.
      const third = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', run: async () => 'third' });
      await settle();
      expect(third.state()).toBe('queued');
      handle?.finish('made by the leader');
      await expect(rider.done).resolves.toBe('made by the leader');
      leader.finish();
      await first.done;
      await expect(third.done).resolves.toBe('third');
    });

    it('given back, it is queued again and runs on its own', async () => {
      const scheduler = new DeadlineScheduler<Kind>({ slots: 1 });
      const leader = controllable();
      const first = scheduler.submit({ kind: 'onDemand', workClass: 'deadline', run: leader.run });
      const rider = scheduler.submit({ kind: 'prefetch', workClass: 'speculative', run: async () => 'own run' });
      await settle();
      const handle = rider.joinRunning();
      handle?.giveBack();
      expect(rider.state()).toBe('queued');
      leader.finish();
      await first.done;
      await expect(rider.done).resolves.toBe('own run');
    });

    it('cancelled while taken over, it ends at once; the taker\'s later word changes nothing', async () => {
      const finished: Array<FinishedWork<Kind>> = [];
      const observed = new DeadlineScheduler<Kind>({ slots: 1, onFinish: (work) => finished.push(work) });
      const leader = controllable();
      observed.submit({ kind: 'onDemand', workClass: 'deadline', run: leader.run });
      const rider = observed.submit({ kind: 'prefetch', workClass: 'speculative', run: async () => 'own run' });
      await settle();
      const handle = rider.joinRunning();
      rider.cancel(new Error('the viewer left'));
      await expect(rider.done).rejects.toThrow('the viewer left');
      handle?.finish('too late');
      expect(finished.filter((work) => work.kind === 'prefetch').map((work) => work.outcome)).toEqual(['cancelled']);
      expect(observed.running()).toBe(1);
      leader.finish();
    });
  });
});
