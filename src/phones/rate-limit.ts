import { GatewayError } from '../errors.js';

/**
 * Counts failures per key in a sliding window; once over the limit, further attempts are refused
 * with 429 until the window has moved on. Successes do not count, so honest clients never wait.
 * In memory for one gateway; several gateways on PostgreSQL share one in the database (cluster/).
 */
export interface FailureLimiter {
  /** Throws RATE_LIMITED while the key has its limit of failures in the window. */
  check(key: string): Promise<void>;
  /**
   * Checks and counts an attempt as failed before it is tried, so that attempts running at the same
   * time cannot all pass the check; the returned function takes the count back once it succeeded.
   */
  attempt(key: string): Promise<() => Promise<void>>;
}

/** Makes a limiter: `scope` names its counts apart from other limiters' where they share a store. */
export type FailureLimiterFactory = (scope: string, maxFailures: number, windowMs: number, what: string) => FailureLimiter;

export const rateLimited = (what: string, retryAfter: number): GatewayError =>
  new GatewayError('RATE_LIMITED', `Too many failed ${what} attempts; try again in ${retryAfter} s`, { retryAfter });

/**
 * The failures of one gateway, in memory, at instants the caller gives. Keys whose failures have
 * all left the window are forgotten as time passes: failures are also kept in the order they were
 * counted, and each call drops the ones that have expired since, so a failure costs O(1)
 * (amortized) however many clients failed before.
 */
export class FailureWindow {
  private readonly failures = new Map<string, number[]>();
  /** Every failure counted, oldest first; `head` is the first not yet expired. */
  private readonly counted: Array<{ key: string; at: number }> = [];
  private head = 0;

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly what: string,
  ) {}

  /** Keys with a failure in the window. */
  get keys(): number {
    return this.failures.size;
  }

  check(key: string, now: number): void {
    this.expire(now);
    const recent = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (recent.length >= this.maxFailures) {
      throw rateLimited(this.what, Math.max(1, Math.ceil(((recent[0] ?? now) + this.windowMs - now) / 1000)));
    }
  }

  fail(key: string, now: number): void {
    this.expire(now);
    const list = this.failures.get(key);
    if (list) list.push(now);
    else this.failures.set(key, [now]);
    this.counted.push({ key, at: now });
  }

  /** check() and fail() at once; the returned function takes the failure back. */
  attempt(key: string, now: number): () => void {
    this.check(key, now);
    this.fail(key, now);
    return () => {
      const list = this.failures.get(key);
      const i = list?.lastIndexOf(now) ?? -1;
      if (!list || i < 0) return;
      list.splice(i, 1);
      if (list.length === 0) this.failures.delete(key);
    };
  }

  /** Drops the failures that have left the window since the last call, and the keys left with none. */
  private expire(now: number): void {
    while (this.head < this.counted.length && now - this.counted[this.head]!.at >= this.windowMs) {
      const { key } = this.counted[this.head]!;
      this.head += 1;
      const list = this.failures.get(key);
      if (!list) continue;
      while (list.length > 0 && now - list[0]! >= this.windowMs) list.shift();
      if (list.length === 0) this.failures.delete(key);
    }
    // The expired entries go in one copy once they are most of the queue: O(1) per failure.
    if (this.head > 1024 && this.head * 2 > this.counted.length) {
      this.counted.splice(0, this.head);
      this.head = 0;
    }
  }
}

/** One gateway's limiter: a FailureWindow on the gateway's clock. */
export class MemoryFailureLimiter implements FailureLimiter {
  private readonly window: FailureWindow;

  constructor(
    maxFailures: number,
    windowMs: number,
    what: string,
    private readonly now: () => number = Date.now,
  ) {
    this.window = new FailureWindow(maxFailures, windowMs, what);
  }

  static readonly factory: FailureLimiterFactory = (_scope, maxFailures, windowMs, what) => new MemoryFailureLimiter(maxFailures, windowMs, what);

  async check(key: string): Promise<void> {
    this.window.check(key, this.now());
  }

  async attempt(key: string): Promise<() => Promise<void>> {
    const takeBack = this.window.attempt(key, this.now());
    return async () => takeBack();
  }
}
