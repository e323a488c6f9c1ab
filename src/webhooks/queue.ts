/** What an attempt sends and records; kept in memory for the jobs stored by this process, within a budget. */
export interface JobContent {
  eventId: string;
  event: string;
  url: string;
  body: string;
  /** The delivery row a person asked to send again, else null. */
  retryOf: number | null;
}

/** What the scheduler knows of a stored job; without `content`, the job is read from the store when it goes out. */
export interface QueuedJob {
  id: number;
  callId: string;
  /** The receiver: the URL's origin (scheme, host, port). Each has its own lane. */
  origin: string;
  /** Number of the next attempt. */
  attempt: number;
  /** Epoch ms. */
  dueAt: number;
  content?: JobContent | undefined;
}

export interface DeliveryQueueLimits {
  /** Attempts in flight at once to one receiver. */
  perReceiver: number;
  /** Attempts in flight at once in all; bounds the sockets the gateway opens. */
  total: number;
}

type Place = 'later' | 'blocked' | 'ready' | 'flying';

interface Entry {
  job: QueuedJob;
  place: Place;
}

interface Lane {
  flying: number;
  /** Ids of the due jobs that may go out, oldest first. */
  ready: number[];
}

/** Inserts into an ascending array, keeping it sorted. */
function insertSorted<T>(list: T[], item: T, before: (a: T, b: T) => boolean): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(list[mid]!, item)) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, item);
}

function removeSorted(list: number[], id: number): void {
  const at = list.indexOf(id);
  if (at >= 0) list.splice(at, 1);
}

const earlier = (a: QueuedJob, b: QueuedJob): boolean => a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.id < b.id);

/**
 * The in-memory schedule of the webhook jobs (pure: no I/O, time passed in). Every receiver has its
 * own lane with its own concurrency, and lanes take turns for the shared total, so a receiver that
 * hangs holds only its own slots. Among one call's jobs at attempt 1 only the oldest may go out
 * ("first attempts follow the timeline"); retries do not hold later events back.
 */
export class DeliveryQueue {
  private readonly entries = new Map<number, Entry>();
  /** Jobs not yet due, earliest first. */
  private readonly later: QueuedJob[] = [];
  /** Per call, the ids of its jobs at attempt 1, oldest first; the head alone may go out. */
  private readonly firstAttempts = new Map<string, number[]>();
  private readonly lanes = new Map<string, Lane>();
  /** Lanes with ready jobs, in turn order. */
  private readonly turns = new Set<string>();
  private flying = 0;

  constructor(private readonly limits: DeliveryQueueLimits) {}

  get size(): number {
    return this.entries.size;
  }

  get inFlight(): number {
    return this.flying;
  }

  /** Jobs not yet due (waiting for their time, mostly retries). */
  get scheduled(): number {
    return this.later.length;
  }

  has(id: number): boolean {
    return this.entries.has(id);
  }

  /** A stored job the queue does not know yet; a known id is ignored. */
  add(job: QueuedJob): void {
    if (this.entries.has(job.id)) return;
    const entry: Entry = { job: { ...job }, place: 'later' };
    this.entries.set(job.id, entry);
    if (job.attempt === 1) {
      let ids = this.firstAttempts.get(job.callId);
      if (!ids) this.firstAttempts.set(job.callId, (ids = []));
      insertSorted(ids, job.id, (a, b) => a < b);
      if (ids[0] === job.id && ids.length > 1) {
        // An older first attempt arrived late (its transaction committed last): the former head waits for it.
        const displaced = this.entries.get(ids[1]!);
        if (displaced?.place === 'ready') this.unready(displaced);
      }
    }
    insertSorted(this.later, entry.job, earlier);
  }

  /** Moves what is due at `now` forward and returns the jobs that go out now, each marked in flight. */
  take(now: number): QueuedJob[] {
    while (this.later.length > 0 && this.later[0]!.dueAt <= now) {
      const job = this.later.shift()!;
      const entry = this.entries.get(job.id)!;
      this.becomeDue(entry);
    }
    const out: QueuedJob[] = [];
    while (this.flying < this.limits.total && this.turns.size > 0) {
      let progressed = false;
      for (const origin of [...this.turns]) {
        if (this.flying >= this.limits.total) break;
        const lane = this.lanes.get(origin)!;
        this.turns.delete(origin);
        if (lane.flying >= this.limits.perReceiver || lane.ready.length === 0) continue;
        const entry = this.entries.get(lane.ready.shift()!)!;
        entry.place = 'flying';
        lane.flying += 1;
        this.flying += 1;
        out.push(entry.job);
        progressed = true;
        // Back to the end of the line: the next receiver goes first.
        if (lane.ready.length > 0 && lane.flying < this.limits.perReceiver) this.turns.add(origin);
      }
      if (!progressed) break;
    }
    return out;
  }

  /** The earliest time a job not yet due becomes due, or undefined. */
  nextDueAt(): number | undefined {
    return this.later[0]?.dueAt;
  }

  /**
   * An attempt (or the try to make one) is over: the job is gone (`next` null) or waits for its next
   * attempt, or for the same one again after a store failure.
   */
  finish(id: number, next: { attempt: number; dueAt: number } | null): void {
    const entry = this.entries.get(id);
    if (!entry || entry.place !== 'flying') return;
    const { job } = entry;
    const lane = this.lanes.get(job.origin)!;
    lane.flying -= 1;
    this.flying -= 1;
    if (lane.ready.length > 0) this.turns.add(job.origin);
    const leavesFirstAttempts = job.attempt === 1 && (next === null || next.attempt > 1);
    if (next) {
      job.attempt = next.attempt;
      job.dueAt = next.dueAt;
      entry.place = 'later';
      insertSorted(this.later, job, earlier);
    } else {
      this.entries.delete(id);
    }
    if (leavesFirstAttempts) {
      const ids = this.firstAttempts.get(job.callId)!;
      removeSorted(ids, id);
      if (ids.length === 0) this.firstAttempts.delete(job.callId);
      else {
        const head = this.entries.get(ids[0]!)!;
        if (head.place === 'blocked') this.ready(head);
      }
    }
    if (lane.flying === 0 && lane.ready.length === 0) this.lanes.delete(job.origin);
  }

  /** Forgets everything (the dispatcher stopped; the store still holds the jobs). */
  clear(): void {
    this.entries.clear();
    this.later.length = 0;
    this.firstAttempts.clear();
    this.lanes.clear();
    this.turns.clear();
    this.flying = 0;
  }

  private becomeDue(entry: Entry): void {
    const { job } = entry;
    if (job.attempt === 1 && this.firstAttempts.get(job.callId)?.[0] !== job.id) entry.place = 'blocked';
    else this.ready(entry);
  }

  private ready(entry: Entry): void {
    entry.place = 'ready';
    let lane = this.lanes.get(entry.job.origin);
    if (!lane) this.lanes.set(entry.job.origin, (lane = { flying: 0, ready: [] }));
    insertSorted(lane.ready, entry.job.id, (a, b) => a < b);
    if (lane.flying < this.limits.perReceiver) this.turns.add(entry.job.origin);
  }

  private unready(entry: Entry): void {
    const lane = this.lanes.get(entry.job.origin);
    entry.place = 'blocked';
    if (!lane) return;
    removeSorted(lane.ready, entry.job.id);
    if (lane.ready.length === 0) {
      this.turns.delete(entry.job.origin);
      if (lane.flying === 0) this.lanes.delete(entry.job.origin);
    }
  }
}
