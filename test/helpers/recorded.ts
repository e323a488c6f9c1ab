interface Waiter<T> {
  test: (v: T) => boolean;
  resolve: (v: T) => void;
}

/**
 * The tests' one "record messages, await the one that matches" helper: items are kept in arrival
 * order, and a test awaits the first item (already recorded or still to come) that passes a check.
 */
export class Recorded<T> {
  readonly items: T[] = [];
  private readonly waiters = new Set<Waiter<T>>();

  add(item: T): void {
    this.items.push(item);
    for (const w of [...this.waiters]) {
      if (w.test(item)) {
        this.waiters.delete(w);
        w.resolve(item);
      }
    }
  }

  /** The first item (already recorded or still to come) that passes `test`. */
  next(test: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
    const seen = this.items.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return this.nextNew(test, timeoutMs, what);
  }

  nextNew(test: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter<T> = {
        test,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`${what}: nothing matching within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}

