import { FRAME_MS } from './constants.js';

export type TickListener = (tick: number) => void;

export interface FrameClockOptions {
  periodMs?: number;
  /** Most overdue ticks still delivered after the event loop was blocked (default 50); older ones are skipped. */
  maxCatchUp?: number;
  /** Most ticks delivered in one timer callback while catching up (default 5). */
  burst?: number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  /** Receives what a listener threw; by default it is rethrown in a microtask. */
  onError?: (err: unknown) => void;
}

/**
 * A drift-free frame clock shared by many calls. While it has listeners, tick n is due at
 * start + n * periodMs (n = 1, 2, ...), start being the time the first listener subscribed;
 * each timer is set for the time left until the next deadline, so lateness never accumulates.
 *
 * Catch-up: when a timer fires after several deadlines have passed, every overdue tick is still
 * delivered — a skipped tick would leave its 20 ms of queued audio behind for the rest of the call —
 * but in bursts of at most `burst` (default 5) per timer callback, 1 ms apart, so the socket reads
 * that were held up by the same stall run in between. Only a stall longer than `maxCatchUp` ticks
 * (default 50, one second) loses its oldest ticks: their numbers are never delivered, so the
 * clock stays on its grid and listeners can see the gap. All listeners get each tick, in
 * subscription order; one that unsubscribes (or is unsubscribed) is not called again.
 */
export class FrameClock {
  private readonly periodMs: number;
  private readonly maxCatchUp: number;
  private readonly burst: number;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;
  private readonly onError: (err: unknown) => void;
  /** Replaced, never mutated, so a tick can iterate it while listeners come and go. */
  private listeners: readonly TickListener[] = [];
  private start = 0;
  private nextTick = 1;
  private timer: unknown = undefined;
  /** Bumped on each start and stop, so a tick loop notices the clock was restarted under it. */
  private run = 0;

  constructor(opts: FrameClockOptions = {}) {
    this.periodMs = opts.periodMs ?? FRAME_MS;
    this.maxCatchUp = Math.max(1, opts.maxCatchUp ?? 50);
    this.burst = Math.max(1, opts.burst ?? 5);
    this.now = opts.now ?? (() => performance.now());
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((h) => clearTimeout(h as NodeJS.Timeout));
    this.onError =
      opts.onError ??
      ((err) =>
        queueMicrotask(() => {
          throw err;
        }));
  }

  get running(): boolean {
    return this.listeners.length > 0;
  }

  subscribe(fn: TickListener): () => void {
    let active = true;
    const listener: TickListener = (tick) => {
      if (active) fn(tick);
    };
    this.listeners = [...this.listeners, listener];
    if (this.listeners.length === 1) this.begin();
    return () => {
      if (!active) return;
      active = false;
      this.listeners = this.listeners.filter((l) => l !== listener);
      if (this.listeners.length === 0) this.halt();
    };
  }

  private begin(): void {
    this.run++;
    this.start = this.now();
    this.nextTick = 1;
    this.schedule();
  }

  private halt(): void {
    this.run++;
    if (this.timer !== undefined) this.clearTimer(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    const remaining = this.start + this.nextTick * this.periodMs - this.now();
    // At least 1 ms, so a timer that fired a little early cannot spin.
    this.timer = this.setTimer(() => this.fire(), Math.max(1, Math.ceil(remaining)));
  }

  private fire(): void {
    this.timer = undefined;
    const run = this.run;
    const due = Math.floor((this.now() - this.start) / this.periodMs);
    if (due - this.nextTick >= this.maxCatchUp) this.nextTick = due - this.maxCatchUp + 1;
    const last = Math.min(due, this.nextTick + this.burst - 1);
    while (this.nextTick <= last && this.run === run) {
      const tick = this.nextTick++;
      for (const listener of this.listeners) {
        try {
          listener(tick);
        } catch (err) {
          this.onError(err);
        }
      }
    }
    if (this.run === run) this.schedule();
  }
}
