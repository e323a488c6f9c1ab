import { GatewayError } from '../errors.js';

/** Past this many keys, a sweep drops the ones whose failures have all left the window. */
const SWEEP_AT = 10_000;

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

/** One gateway's limiter, in memory. */
export class MemoryFailureLimiter implements FailureLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly what: string,
    private readonly now: () => number = Date.now,
  ) {}

  static readonly factory: FailureLimiterFactory = (_scope, maxFailures, windowMs, what) => new MemoryFailureLimiter(maxFailures, windowMs, what);

  check(key: string): Promise<void> {
    try {
      this.refuseOverLimit(key, this.now());
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  attempt(key: string): Promise<() => Promise<void>> {
    const now = this.now();
    try {
      this.refuseOverLimit(key, now);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.set(key, recent);
    if (this.failures.size > SWEEP_AT) for (const k of [...this.failures.keys()]) this.recent(k, now);
    return Promise.resolve(() => {
      const list = this.failures.get(key);
      const i = list?.lastIndexOf(now) ?? -1;
      if (list && i >= 0) list.splice(i, 1);
      return Promise.resolve();
    });
  }

  private refuseOverLimit(key: string, now: number): void {
    const recent = this.recent(key, now);
    if (recent.length >= this.maxFailures) {
      throw rateLimited(this.what, Math.max(1, Math.ceil(((recent[0] ?? now) + this.windowMs - now) / 1000)));
    }
  }

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length === 0) this.failures.delete(key);
    else this.failures.set(key, list);
    return list;
  }
}
