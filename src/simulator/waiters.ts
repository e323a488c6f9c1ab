interface Waiter {
  check: () => boolean;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Promises that settle once a condition holds; the owner calls poke() whenever state changes. */
export class WaitSet {
  private readonly waiters = new Set<Waiter>();

  get size(): number {
    return this.waiters.size;
  }

  /** Resolves when `check()` holds (now or at a later poke), rejects after `timeoutMs`. */
  until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
    try {
      if (check()) return Promise.resolve();
    } catch (err) {
      return Promise.reject(toError(err));
    }
    return new Promise<void>((resolve, reject) => {
      const settle = (err?: Error): void => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        if (err) reject(err);
        else resolve();
      };
      const waiter: Waiter = { check, resolve: () => settle(), reject: settle };
      const timer = setTimeout(() => settle(new Error(`waitFor(${what}) timed out after ${timeoutMs} ms`)), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  poke(): void {
    for (const w of this.waiters) {
      try {
        if (w.check()) w.resolve();
      } catch (err) {
        w.reject(toError(err));
      }
    }
  }

  rejectAll(err: Error): void {
    for (const w of this.waiters) w.reject(err);
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
