import type { CallsRepo } from '../store/index.js';
import type { CallService } from './calls.js';
import { CALL_STATES, type CallState } from './state.js';

/**
 * How many calls the log holds in each state, kept in memory: counted once at start (one grouped
 * query), then moved by every change the call service emits, so reading it costs no query.
 */
export class CallStateCounts {
  private constructor(private readonly counts: Record<CallState, number>) {}

  /** Call before the service applies any change (the gateway does, before it serves). */
  static async follow(calls: CallService, repo: CallsRepo): Promise<CallStateCounts> {
    const stored = await repo.countByState();
    const counts = Object.fromEntries(CALL_STATES.map((state) => [state, stored.get(state) ?? 0])) as Record<CallState, number>;
    const follower = new CallStateCounts(counts);
    calls.on('change', ({ call, previousState }) => {
      if (previousState === call.state) return;
      if (previousState !== null) counts[previousState] -= 1;
      counts[call.state] += 1;
    });
    return follower;
  }

  snapshot(): Record<CallState, number> {
    return { ...this.counts };
  }
}
