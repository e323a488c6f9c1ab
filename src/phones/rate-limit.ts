import { GatewayError } from '../errors.js';

/** Past this many keys, a sweep drops the ones whose failures have all left the window. */
const SWEEP_AT = 10_000;

/**
 * Counts failures per key in a sliding window; once over the limit, further attempts are refused
 * with 429 until the window has moved on. Successes do not count, so honest clients never wait.
 */
export class FailureLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly what: string,
  ) {}

  check(key: string, now = Date.now()): void {
    const recent = this.recent(key, now);
    if (recent.length >= this.maxFailures) {
      const retryAfter = Math.max(1, Math.ceil(((recent[0] ?? now) + this.windowMs - now) / 1000));
      throw new GatewayError('RATE_LIMITED', `Too many failed ${this.what} attempts; try again in ${retryAfter} s`, { retryAfter });
    }
  }

  fail(key: string, now = Date.now()): void {
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.set(key, recent);
    if (this.failures.size > SWEEP_AT) for (const k of [...this.failures.keys()]) this.recent(k, now);
  }

  /**
   * Checks and counts an attempt as failed before it is tried, so that attempts running at the same
   * time cannot all pass the check; the returned function takes the count back once it succeeded.
   */
  attempt(key: string, now = Date.now()): () => void {
    this.check(key, now);
    this.fail(key, now);
    return () => {
      const list = this.failures.get(key);
      const i = list?.lastIndexOf(now) ?? -1;
      if (list && i >= 0) list.splice(i, 1);
    };
  }

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length === 0) this.failures.delete(key);
    else this.failures.set(key, list);
    return list;
  }
}
