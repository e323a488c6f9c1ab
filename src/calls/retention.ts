/**
 * Remembers the last `max` calls that ended and hands back the oldest beyond that, so per-call
 * state kept in memory for reads after the end (a stream's or the assistant's final status and
 * error text) cannot grow without bound. Evicted calls are read from the database instead.
 */
export class EndedCallRetention {
  private readonly ended = new Set<string>();

  constructor(
    private readonly evict: (callId: string) => void,
    private readonly max = 1000,
  ) {}

  callEnded(callId: string): void {
    this.ended.delete(callId);
    this.ended.add(callId);
    while (this.ended.size > this.max) {
      const oldest = this.ended.values().next().value as string;
      this.ended.delete(oldest);
      this.evict(oldest);
    }
  }
}
