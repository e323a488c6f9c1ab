import type { CallsRepo } from '../store/index.js';
import { CALL_STATES, type CallState } from './state.js';

/**
 * How many calls the log holds in each state, kept in memory: counted once at start (one grouped
 * query), then moved by every change the call service emits, so reading it costs no query. With
 * several gateways, the changes other nodes make are applied too (`apply`, from the call-state
 * messages they send), and the count is taken again when some may have been missed (`recount`).
 */
export class CallStateCounts {
  private constructor(
    private counts: Record<CallState, number>,
    private readonly repo: CallsRepo,
  ) {}

  /** Counted now; the gateway's wiring moves it with every change (`apply`) before any call can change. */
  static async open(repo: CallsRepo): Promise<CallStateCounts> {
    return new CallStateCounts(await CallStateCounts.count(repo), repo);
  }

  private static async count(repo: CallsRepo): Promise<Record<CallState, number>> {
    const stored = await repo.countByState();
    return Object.fromEntries(CALL_STATES.map((state) => [state, stored.get(state) ?? 0])) as Record<CallState, number>;
  }

  /** A call moved from `previousState` (null: a new call) to `state`. */
  apply(previousState: CallState | null, state: CallState): void {
    if (previousState === state) return;
    if (previousState !== null) this.counts[previousState] -= 1;
    this.counts[state] += 1;
  }

  async recount(): Promise<void> {
    this.counts = await CallStateCounts.count(this.repo);
  }

  snapshot(): Record<CallState, number> {
    return { ...this.counts };
  }
}
