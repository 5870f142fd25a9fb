// Earliest-deadline-first scheduling of heavy work (ffmpeg encodes) over a fixed number of slots.
//
// Three classes of work, in strict precedence:
// - `deadline`: someone is waiting (a viewer's segment). Ordered by deadline; when no slot is free,
//   running `idle` work is preempted for it.
// - `speculative`: work for someone who will soon wait (a prefetch). Ordered by deadline, started
//   only when no deadline work waits and a slot is free, and on all slots but one at most, so the
//   next viewer's request always finds a slot no speculative work holds.
// - `idle`: work nobody waits for (background rungs, filling the cache). Started only on a slot
//   nothing else wants, and preempted (its attempt aborted, then queued again) as soon as deadline
//   or speculative work needs that slot. An idle attempt is told it runs in the background, so it
//   can run at the lowest CPU priority; work made more urgent while it runs is restarted as such.
//
// Work that finishes after its deadline counts as a miss when the deadline was still ahead when it
// was set: a viewer whose buffer was already empty when it asked (a starting player) cannot be
// served on time by any encoder, and that is latency, not a stall this scheduler caused.

export type WorkClass = 'deadline' | 'speculative' | 'idle';

const CLASS_RANK: Record<WorkClass, number> = { deadline: 0, speculative: 1, idle: 2 };

export type WorkAttempt = {
  /** Aborted when the work is cancelled or preempted; the attempt must stop (kill its process). */
  signal: AbortSignal;
  /** The attempt was started as idle work: run it at the lowest CPU priority. */
  background: boolean;
};

/** ok: it succeeded; cancelled: cancel() ended it; error: it failed. */
export type WorkOutcome = 'ok' | 'error' | 'cancelled';

export type FinishedWork<K extends string, S = undefined> = {
  kind: K;
  label: string;
  subject: S | undefined;
  workClass: WorkClass;
  deadline: number;
  queuedAt: number;
  startedAt: number;
  finishedAt: number;
  ok: boolean;
  outcome: WorkOutcome;
  missedDeadline: boolean;
  preemptions: number;
};

export type WorkOptions<K extends string, T, S = undefined> = {
  kind: K;
  workClass: WorkClass;
  /** What the work is about, handed back untouched to onFinish (the scheduler never looks at it). */
  subject?: S;
  /** Epoch ms by which the result is needed; orders deadline and speculative work. Default: now. */
  deadline?: number;
  /** Expected running time in ms, for estimates of when queued work will finish; unknown: 0. */
  costMs?: number;
  /** Names the work in logs. */
  label?: string;
  /**
   * Deadline work that starts at once, beside the slots, instead of waiting for one: for work so
   * cheap that making a viewer wait for a slot would cost more than running it (as idle work it
   * still takes a slot like any other).
   */
  slotlessWhenUrgent?: boolean;
  /**
   * Whether finishing after the deadline is a miss (default). Work that delivers in parts (a
   * track published fragment by fragment) is judged by its caller, per part: recordMiss().
   */
  judgeByFinish?: boolean;
  /** Runs one attempt; may be called again after a preemption, so it must be repeatable. */
  run: (attempt: WorkAttempt) => Promise<T>;
};

export type ScheduledWork<T, K extends string = string> = {
  readonly done: Promise<T>;
  /** queued → running → finished (a preempted attempt goes back to queued). */
  state: () => 'queued' | 'running' | 'finished';
  workClass: () => WorkClass;
  deadline: () => number;
  /** Makes the work more urgent (a more urgent class, an earlier deadline); never less. `kind`: what it is now counted as. */
  hasten: (workClass: WorkClass, deadline: number, kind?: K) => void;
  /** Removes queued work or aborts running work; `done` rejects with `reason`. */
  cancel: (reason: Error) => void;
  /**
   * Hands queued work to an attempt of other work that will do it too (work done together: one
   * ffmpeg run decoding a source once for several outputs). It leaves the queue, counts as running
   * and holds no slot; the caller ends it with the handle. Null when it is not queued.
   */
  joinRunning: () => JoinedWork<T> | null;
};

/** Queued work taken over by another attempt (see ScheduledWork.joinRunning). */
export type JoinedWork<T> = {
  /** Done: `done` resolves with `value`. */
  finish: (value: T) => void;
  /** Failed: `done` rejects with `error`. */
  fail: (error: unknown) => void;
  /** Not done after all (the other attempt was preempted or stopped first): back in the queue. */
  giveBack: () => void;
};

type Job<K extends string, S> = {
  seq: number;
  kind: K;
  label: string;
  subject: S | undefined;
  workClass: WorkClass;
  deadline: number;
  deadlineSetAt: number;
  costMs: number;
  judgeByFinish: boolean;
  slotlessWhenUrgent: boolean;
  // The running attempt holds no slot (see slotlessWhenUrgent).
  outsideSlots: boolean;
  queuedAt: number;
  startedAt: number;
  run: (attempt: WorkAttempt) => Promise<unknown>;
  state: 'queued' | 'running' | 'finished';
  attempt: AbortController | null;
  attemptBackground: boolean;
  // Set when this scheduler aborted the running attempt to run it again later.
  requeueAfterAbort: boolean;
  // Done by another work's attempt (joinRunning): nothing of its own to abort.
  joined: boolean;
  preemptions: number;
  cancelReason: Error | null;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
};

export type DeadlineSchedulerOptions<K extends string, S = undefined> = {
  slots: number;
  now?: () => number;
  onStart?: (work: { kind: K; label: string; workClass: WorkClass; deadline: number; queuedAt: number; startedAt: number }) => void;
  onFinish?: (work: FinishedWork<K, S>) => void;
};

const byDeadline = <K extends string, S>(a: Job<K, S>, b: Job<K, S>) => a.deadline - b.deadline || a.seq - b.seq;
const bySeq = <K extends string, S>(a: Job<K, S>, b: Job<K, S>) => a.seq - b.seq;

export class DeadlineScheduler<K extends string, S = undefined> {
  private readonly slots: number;
  private readonly speculativeSlots: number;
  private readonly now: () => number;
  private readonly queues: Record<WorkClass, Job<K, S>[]> = { deadline: [], speculative: [], idle: [] };
  private readonly runningJobs = new Set<Job<K, S>>();
  private seq = 0;
  private misses = 0;
  private lastUrgentAt = Number.NEGATIVE_INFINITY;
  private readonly idleListeners = new Set<() => void>();

  constructor(private readonly options: DeadlineSchedulerOptions<K, S>) {
    const { slots } = options;
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`DeadlineScheduler: slots must be a positive integer, got ${slots}`);
    this.slots = slots;
    this.speculativeSlots = Math.max(1, slots - 1);
    this.now = options.now ?? Date.now;
  }

  submit<T>(options: WorkOptions<K, T, S>): ScheduledWork<T, K> {
    const now = this.now();
    const deadline = options.deadline ?? now;
    if (Number.isNaN(deadline)) throw new RangeError('DeadlineScheduler: deadline is NaN');
    let resolve: (value: unknown) => void = () => undefined;
    let reject: (reason: unknown) => void = () => undefined;
    const done = new Promise<T>((onResolve, onReject) => {
      resolve = onResolve as (value: unknown) => void;
      reject = onReject;
    });
    const job: Job<K, S> = {
      seq: this.seq++,
      kind: options.kind,
      label: options.label ?? options.kind,
      subject: options.subject,
      workClass: options.workClass,
      deadline,
      deadlineSetAt: now,
      costMs: Math.max(0, options.costMs ?? 0),
      judgeByFinish: options.judgeByFinish ?? true,
      slotlessWhenUrgent: options.slotlessWhenUrgent ?? false,
      outsideSlots: false,
      queuedAt: now,
      startedAt: 0,
      run: options.run,
      state: 'queued',
      attempt: null,
      attemptBackground: false,
      requeueAfterAbort: false,
      joined: false,
      preemptions: 0,
      cancelReason: null,
      resolve,
      reject,
    };
    this.enqueue(job);
    this.pump();
    return {
      done,
      state: () => job.state,
      workClass: () => job.workClass,
      deadline: () => job.deadline,
      hasten: (workClass, newDeadline, kind) => this.hasten(job, workClass, newDeadline, kind),
      cancel: (reason) => this.cancel(job, reason),
      joinRunning: () => this.joinRunning(job) as JoinedWork<T> | null,
    };
  }

  running(): number {
    return this.runningJobs.size;
  }

  /** Deadline work waiting for a slot: someone is waiting and every encoder is taken. */
  queuedDeadlineWork(): number {
    return this.queues.deadline.length;
  }

  queued(): number {
    return this.queues.deadline.length + this.queues.speculative.length + this.queues.idle.length;
  }

  /** Queued and running work per kind. */
  countByKind(): { queued: Map<K, number>; running: Map<K, number> } {
    const queued = new Map<K, number>();
    const running = new Map<K, number>();
    for (const queue of Object.values(this.queues)) for (const job of queue) queued.set(job.kind, (queued.get(job.kind) ?? 0) + 1);
    for (const job of this.runningJobs) running.set(job.kind, (running.get(job.kind) ?? 0) + 1);
    return { queued, running };
  }

  deadlineMisses(): number {
    return this.misses;
  }

  /** A part of some work (see judgeByFinish) was delivered after its deadline. */
  recordMiss(): void {
    this.misses++;
  }

  limit(): number {
    return this.slots;
  }

  /** Slots idle work could take right now: free, and nothing more urgent queued. */
  idleCapacity(): number {
    if (this.queues.deadline.length > 0 || this.queues.speculative.length > 0 || this.queues.idle.length > 0) return 0;
    return this.slots - this.usedSlots();
  }

  /** How long no deadline or speculative work has been queued or running (0 while some is). */
  quietForMs(): number {
    if (this.queues.deadline.length > 0 || this.queues.speculative.length > 0) return 0;
    for (const job of this.runningJobs) if (job.workClass !== 'idle') return 0;
    return Math.max(0, this.now() - this.lastUrgentAt);
  }

  /** Called (synchronously) whenever a slot frees up and no queued work takes it. */
  onIdle(listener: () => void): () => void {
    this.idleListeners.add(listener);
    return () => this.idleListeners.delete(listener);
  }

  /**
   * Milliseconds from now until deadline work with this deadline would start, given the running
   * work's remaining expected time, the deadline work queued ahead of it (earlier deadlines) and
   * idle work (preempted, so it frees its slot at once). Work of unknown cost counts as 0.
   */
  estimatedStartMs(deadline: number): number {
    const now = this.now();
    const freeAt: number[] = [];
    for (const job of this.runningJobs) {
      if (job.outsideSlots) continue;
      freeAt.push(job.workClass === 'idle' ? 0 : Math.max(0, job.costMs - (now - job.startedAt)));
    }
    while (freeAt.length < this.slots) freeAt.push(0);
    freeAt.sort((a, b) => a - b);
    for (const job of this.queues.deadline) {
      if (job.deadline > deadline) break;
      if (job.slotlessWhenUrgent) continue;
      // The earliest free slot takes the next job; keep the list sorted.
      const start = freeAt.shift() ?? 0;
      const end = start + job.costMs;
      const at = freeAt.findIndex((value) => value > end);
      freeAt.splice(at === -1 ? freeAt.length : at, 0, end);
    }
    return freeAt[0] ?? 0;
  }

  private enqueue(job: Job<K, S>): void {
    const queue = this.queues[job.workClass];
    const compare = job.workClass === 'idle' ? bySeq : byDeadline;
    let low = 0;
    let high = queue.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = queue[mid];
      if (other && compare(other, job) <= 0) low = mid + 1;
      else high = mid;
    }
    queue.splice(low, 0, job);
  }

  private dequeue(job: Job<K, S>): void {
    const queue = this.queues[job.workClass];
    const index = queue.indexOf(job);
    if (index !== -1) queue.splice(index, 1);
  }

  private hasten(job: Job<K, S>, workClass: WorkClass, deadline: number, kind: K | undefined): void {
    if (job.state === 'finished') return;
    const moreUrgentClass = CLASS_RANK[workClass] < CLASS_RANK[job.workClass];
    const earlier = deadline < job.deadline;
    if (!moreUrgentClass && !earlier) return;
    if (kind !== undefined) job.kind = kind;
    const now = this.now();
    if (job.state === 'queued') this.dequeue(job);
    if (moreUrgentClass) job.workClass = workClass;
    if (earlier || moreUrgentClass) {
      job.deadline = Math.min(job.deadline, deadline);
      job.deadlineSetAt = now;
    }
    if (job.state === 'queued') {
      this.enqueue(job);
    } else if (job.attemptBackground && job.workClass === 'deadline' && !job.requeueAfterAbort) {
      // Someone now waits for an attempt running at the lowest CPU priority: run it again at
      // normal priority rather than let it crawl behind everything else. (Speculative work may
      // finish at the low priority: nobody waits for it yet.)
      job.requeueAfterAbort = true;
      job.attempt?.abort(new Error('restarted at normal priority'));
    }
    this.pump();
  }

  private joinRunning(job: Job<K, S>): JoinedWork<unknown> | null {
    if (job.state !== 'queued') return null;
    this.dequeue(job);
    job.state = 'running';
    job.joined = true;
    job.outsideSlots = true;
    job.startedAt = this.now();
    this.runningJobs.add(job);
    const end = (ended: () => void) => this.endJoined(job, ended);
    return {
      finish: (value) =>
        end(() => {
          this.finish(job, true);
          job.resolve(value);
        }),
      fail: (error) =>
        end(() => {
          this.finish(job, false);
          job.reject(error);
        }),
      giveBack: () =>
        end(() => {
          job.state = 'queued';
          job.outsideSlots = false;
          this.enqueue(job);
        }),
    };
  }

  // Ends work taken over by another attempt, once: later words of that attempt change nothing.
  private endJoined(job: Job<K, S>, ended: () => void): void {
    if (job.state !== 'running' || !job.joined) return;
    this.runningJobs.delete(job);
    job.joined = false;
    ended();
    this.pump();
  }

  private cancel(job: Job<K, S>, reason: Error): void {
    if (job.state === 'finished' || job.cancelReason) return;
    job.cancelReason = reason;
    // Another attempt is doing it: whatever that one makes of it, nobody waits for it any more.
    if (job.joined) {
      this.endJoined(job, () => {
        this.finish(job, false);
        job.reject(reason);
      });
      return;
    }
    if (job.state === 'queued') {
      this.dequeue(job);
      this.finish(job, false);
      job.reject(reason);
      this.pump();
      return;
    }
    job.requeueAfterAbort = false;
    job.attempt?.abort(reason);
  }

  private runningCount(workClass: WorkClass): number {
    let count = 0;
    for (const job of this.runningJobs) if (job.workClass === workClass && !job.outsideSlots) count++;
    return count;
  }

  private usedSlots(): number {
    let count = 0;
    for (const job of this.runningJobs) if (!job.outsideSlots) count++;
    return count;
  }

  // Idle attempts being aborted to make room; their slots free up when their processes exit.
  private releasing(): number {
    let count = 0;
    for (const job of this.runningJobs) if (job.requeueAfterAbort && job.attemptBackground) count++;
    return count;
  }

  // Preempts running idle work, most recently started first (it has done the least), until
  // `needed` slots are on their way to being free.
  private preemptIdle(needed: number): void {
    let releasing = this.releasing();
    const candidates = [...this.runningJobs]
      .filter((job) => job.workClass === 'idle' && !job.requeueAfterAbort && !job.outsideSlots)
      .sort((a, b) => b.startedAt - a.startedAt);
    for (const job of candidates) {
      if (releasing >= needed) return;
      job.requeueAfterAbort = true;
      job.preemptions++;
      job.attempt?.abort(new Error('preempted by more urgent work'));
      releasing++;
    }
  }

  private pump(): void {
    for (const job of this.queues.deadline.filter((queued) => queued.slotlessWhenUrgent)) this.start(job, { outsideSlots: true });
    for (;;) {
      const free = this.slots - this.usedSlots();
      const urgent = this.queues.deadline[0];
      if (urgent) {
        if (free > 0) {
          this.start(urgent);
          continue;
        }
        this.preemptIdle(this.queues.deadline.length);
        return;
      }
      const speculative = this.queues.speculative[0];
      if (speculative) {
        // At most all slots but one: a viewer's next request always finds a slot no speculative
        // work holds (idle work gives its slot up at once).
        if (this.runningCount('speculative') < this.speculativeSlots) {
          if (free > 0) {
            this.start(speculative);
            continue;
          }
          this.preemptIdle(1);
        }
        // Idle work does not take a slot speculative work is waiting to be allowed into.
        return;
      }
      const idle = this.queues.idle[0];
      if (idle && free > 0) {
        this.start(idle);
        continue;
      }
      if (free > 0 && this.queued() === 0) for (const listener of this.idleListeners) listener();
      return;
    }
  }

  private start(job: Job<K, S>, { outsideSlots = false } = {}): void {
    this.dequeue(job);
    const attempt = new AbortController();
    job.state = 'running';
    job.outsideSlots = outsideSlots;
    job.attempt = attempt;
    job.attemptBackground = job.workClass === 'idle';
    job.requeueAfterAbort = false;
    job.startedAt = this.now();
    this.runningJobs.add(job);
    this.options.onStart?.({
      kind: job.kind,
      label: job.label,
      workClass: job.workClass,
      deadline: job.deadline,
      queuedAt: job.queuedAt,
      startedAt: job.startedAt,
    });
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(job.run({ signal: attempt.signal, background: job.attemptBackground }));
    } catch (error) {
      // An attempt that throws before returning its promise must release the slot all the same.
      result = Promise.reject(error);
    }
    result.then(
      (value) => this.settle(job, attempt, { ok: true, value }),
      (error: unknown) => this.settle(job, attempt, { ok: false, error }),
    );
  }

  private settle(job: Job<K, S>, attempt: AbortController, outcome: { ok: true; value: unknown } | { ok: false; error: unknown }): void {
    this.runningJobs.delete(job);
    job.attempt = null;
    if (!outcome.ok && attempt.signal.aborted && job.requeueAfterAbort && !job.cancelReason) {
      job.state = 'queued';
      job.requeueAfterAbort = false;
      this.enqueue(job);
      this.pump();
      return;
    }
    this.finish(job, outcome.ok);
    if (outcome.ok) job.resolve(outcome.value);
    else job.reject(job.cancelReason ?? outcome.error);
    this.pump();
  }

  private finish(job: Job<K, S>, ok: boolean): void {
    job.state = 'finished';
    const finishedAt = this.now();
    if (job.workClass !== 'idle') this.lastUrgentAt = finishedAt;
    const started = job.startedAt > 0;
    const missedDeadline =
      ok && job.judgeByFinish && job.workClass === 'deadline' && job.deadline > job.deadlineSetAt && finishedAt > job.deadline;
    if (missedDeadline) this.misses++;
    this.options.onFinish?.({
      kind: job.kind,
      label: job.label,
      subject: job.subject,
      workClass: job.workClass,
      deadline: job.deadline,
      queuedAt: job.queuedAt,
      startedAt: started ? job.startedAt : finishedAt,
      finishedAt,
      ok,
      outcome: ok ? 'ok' : job.cancelReason ? 'cancelled' : 'error',
      missedDeadline,
      preemptions: job.preemptions,
    });
  }
}
