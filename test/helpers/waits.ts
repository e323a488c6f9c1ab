/**
 * The tests' two ways to wait (docs/architecture.md, "Tests"):
 *
 * - `Recorded<T>`, for a stream of messages: every item is kept from the start, in arrival order,
 *   and `next(match)` returns the first item that matches, already recorded or still to come, so a
 *   test never misses a message that came before it started waiting;
 * - `until(...)`, for a condition: a state read (through the API, a fake, a counter) checked again
 *   on every event of `wake` where something can tell us it changed, polled only where nothing can.
 *
 * Both time out on their own, before the test runner does, with a message saying what was awaited
 * and what was seen instead.
 */

/** How long a wait lasts unless told; the tests' usual bound. */
export const DEFAULT_WAIT_MS = 5000;

export interface NextOptions {
  timeoutMs?: number;
  /** What the test waits for, for the timeout's message. */
  what?: string;
  /** Look only at items from this index on (default 0: everything recorded). */
  from?: number;
  /**
   * Hand each item to at most one claiming wait (a queue's "take"): an item a claiming wait
   * returned is skipped by later claiming waits.
   */
  claim?: boolean;
}

interface Waiter<T> {
  what: string;
  from: number;
  claim: boolean;
  match: (item: T) => boolean;
  resolve: (item: T) => void;
  /** Fails the wait with this sentence (the items seen are added). */
  fail: (sentence: string) => void;
}

const shortJson = (item: unknown, max = 160): string => {
  let text: string;
  try {
    text = JSON.stringify(item) ?? String(item);
  } catch {
    text = String(item);
  }
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
};

/**
 * A recorded stream of messages (a socket's messages, a receiver's requests, a process's log lines):
 * a fake adds every item as it arrives, a test awaits the one it expects.
 */
export class Recorded<T> {
  readonly items: T[] = [];
  private readonly waiters = new Set<Waiter<T>>();
  private readonly claimed = new Set<number>();
  private ended: string | null = null;

  /**
   * @param name the stream's name in a timeout's message ("raw phone", "webhook receiver")
   * @param describe one item as a timeout's message lists it (JSON, shortened, by default)
   */
  constructor(
    readonly name = 'stream',
    private readonly describe: (item: T) => string = (item) => shortJson(item),
  ) {}

  get length(): number {
    return this.items.length;
  }

  add(item: T): void {
    const index = this.items.push(item) - 1;
    for (const w of [...this.waiters]) {
      if (index < w.from || !w.match(item)) continue;
      if (w.claim) {
        // One item, one claiming wait: the first one registered takes it.
        if (this.claimed.has(index)) continue;
        this.claimed.add(index);
      }
      w.resolve(item);
    }
  }

  /**
   * No more items will come (the socket closed, the process exited): waits that find nothing in
   * what was recorded fail now, naming `reason`, instead of at their timeout.
   */
  end(reason: string): void {
    this.ended = reason;
    for (const w of [...this.waiters]) w.fail(`${this.name}: ${reason} before ${w.what}`);
  }

  /** The first item from `from` on (default: all recorded) that matches, now or when it arrives. */
  next(match: (item: T) => boolean = () => true, options: NextOptions = {}): Promise<T> {
    const { timeoutMs = DEFAULT_WAIT_MS, what = 'a matching item', from = 0, claim = false } = options;
    for (let i = from; i < this.items.length; i++) {
      const item = this.items[i]!;
      if (claim && this.claimed.has(i)) continue;
      if (!match(item)) continue;
      if (claim) this.claimed.add(i);
      return Promise.resolve(item);
    }
    if (this.ended !== null) return Promise.reject(new Error(`${this.name}: ${this.ended} before ${what}; ${this.seen()}`));
    return new Promise<T>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      const waiter: Waiter<T> = {
        what,
        from,
        claim,
        match,
        resolve: (item) => {
          settle();
          resolve(item);
        },
        fail: (sentence) => {
          settle();
          reject(new Error(`${sentence}; ${this.seen()}`));
        },
      };
      const timer = setTimeout(() => waiter.fail(`${this.name}: no ${what} within ${timeoutMs} ms`), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** The first matching item still to come (recorded items are not looked at). */
  nextNew(match: (item: T) => boolean = () => true, options: Omit<NextOptions, 'from'> = {}): Promise<T> {
    return this.next(match, { ...options, from: this.items.length });
  }

  /** The `n`-th (0-based) matching item of the whole stream, once it has arrived. */
  nth(n: number, match: (item: T) => boolean = () => true, options: Omit<NextOptions, 'from' | 'claim'> = {}): Promise<T> {
    // next() shows each item to a wait once, in order (the record first, then arrivals): count them.
    let count = 0;
    return this.next((item) => match(item) && count++ === n, { what: `item #${n + 1}`, ...options });
  }

  /** What was recorded, for a failure's message: the count and the latest items. */
  seen(): string {
    const latest = this.items.slice(-12).map((item) => this.describe(item));
    const skipped = this.items.length - latest.length;
    return `seen ${this.items.length}${this.items.length ? `: ${skipped ? '..., ' : ''}${latest.join(', ')}` : ''}`;
  }
}

export interface UntilOptions {
  timeoutMs?: number;
  /** What the test waits for, for the timeout's message. */
  what?: string;
  /**
   * Something that tells when the state may have changed: called with `poke`, returns how to stop
   * listening. With it the condition is checked on each poke and never polled; without it, it is
   * polled every `intervalMs`.
   */
  wake?: (poke: () => void) => () => void;
  /** The polling interval when there is no `wake` (ms, default 15). */
  intervalMs?: number;
}

/**
 * Waits until a condition holds and returns the last value read:
 *
 * - `until(read, done, options)`: `read()` (sync or async) until `done(value)` holds;
 * - `until(check, options)`: until `check()` returns true.
 *
 * It fails after `timeoutMs` (default 5 s) with what it waited for and the last value it read.
 */
export function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, options?: UntilOptions): Promise<T>;
export function until(check: () => boolean | Promise<boolean>, options?: UntilOptions): Promise<boolean>;
export async function until<T>(
  read: () => T | Promise<T>,
  doneOrOptions?: ((value: T) => boolean) | UntilOptions,
  maybeOptions: UntilOptions = {},
): Promise<T> {
  const done = typeof doneOrOptions === 'function' ? doneOrOptions : (value: T) => value === true;
  const options = typeof doneOrOptions === 'function' ? maybeOptions : (doneOrOptions ?? {});
  const { timeoutMs = DEFAULT_WAIT_MS, what = 'condition', wake, intervalMs = 15 } = options;
  const deadline = Date.now() + timeoutMs;
  const failure = (last: T): Error => new Error(`${what} not reached within ${timeoutMs} ms; last value: ${shortJson(last, 800)}`);
  let last = await read();
  if (done(last)) return last;
  if (!wake) {
    while (!done(last)) {
      if (Date.now() > deadline) throw failure(last);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      last = await read();
    }
    return last;
  }
  return new Promise<T>((resolve, reject) => {
    let reading = false;
    let again = false;
    let finished = false;
    const finish = (err: Error | null): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      stop();
      if (err) reject(err);
      else resolve(last);
    };
    // One read at a time; pokes during a read ask for one more read after it.
    const poke = (): void => {
      if (finished) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      void (async () => {
        try {
          do {
            again = false;
            last = await read();
            if (done(last)) return finish(null);
          } while (again && !finished);
        } catch (err) {
          finish(err instanceof Error ? err : new Error(String(err)));
        } finally {
          reading = false;
        }
      })();
    };
    const timer = setTimeout(() => finish(failure(last)), Math.max(0, deadline - Date.now()));
    const stop = wake(poke);
    // A change between the first read and subscribing would have no poke: read once more.
    poke();
  });
}
