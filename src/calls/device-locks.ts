/**
 * One queue of work per phone: a dial's busy check and the call it creates, a phone's events, its
 * hello's reconciliation and the end of its absent calls never interleave.
 */
export class DeviceLocks {
  private readonly locks = new Map<string, Promise<unknown>>();

  /** Runs `work` once the phone's earlier work has settled (failed or not). */
  run<T>(deviceId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(deviceId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.locks.set(deviceId, settled);
    void settled.then(() => {
      if (this.locks.get(deviceId) === settled) this.locks.delete(deviceId);
    });
    return next;
  }
}
