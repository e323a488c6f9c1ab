import { GatewayError } from '../errors.js';

/**
 * Counts failures per key in a sliding window; once over the limit, further attempts are refused
 * with 429 until the window has moved on. Successes do not count, so honest phones never wait.
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
  }

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length === 0) this.failures.delete(key);
    return list;
  }
}
