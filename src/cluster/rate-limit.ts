import { sha256 } from '../auth/index.js';
import { rateLimited, type FailureLimiter, type FailureLimiterFactory } from '../phones/index.js';
import type { ClusterRepo } from '../store/index.js';

/**
 * A limiter whose failures every node counts in the database, so a client cannot spread its guesses
 * over the nodes. Keys are stored as their SHA-256: a sign-in's key holds an email address and a
 * client address, which the database has no need to keep in clear (and a hash always fits the column).
 */
class SharedFailureLimiter implements FailureLimiter {
  constructor(
    private readonly repo: ClusterRepo,
    private readonly scope: string,
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly what: string,
  ) {}

  async check(key: string): Promise<void> {
    const { count, retryAfterSeconds } = await this.repo.failures(this.scope, stored(key), this.windowMs);
    if (count >= this.maxFailures) throw rateLimited(this.what, retryAfterSeconds);
  }

  async attempt(key: string): Promise<() => Promise<void>> {
    const counted = await this.repo.countFailure(this.scope, stored(key), this.maxFailures, this.windowMs);
    if ('retryAfterSeconds' in counted) throw rateLimited(this.what, counted.retryAfterSeconds);
    return () => this.repo.forgiveFailure(counted.id);
  }
}

const stored = (key: string): string => sha256(key).toString('hex');

export const sharedFailureLimiters =
  (repo: ClusterRepo): FailureLimiterFactory =>
  (scope, maxFailures, windowMs, what) =>
    new SharedFailureLimiter(repo, scope, maxFailures, windowMs, what);
