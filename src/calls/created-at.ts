/**
 * Call creation times carry microseconds and are strictly increasing, so `createdAt` is unique per
 * call and `before`/`nextBefore` paging is total: no call is skipped or repeated even when many are
 * created within one millisecond.
 */
export class CreationClock {
  private last = 0;

  constructor(latest?: string) {
    if (latest) this.last = toMicros(latest);
  }

  next(nowMs = Date.now()): string {
    this.last = Math.max(nowMs * 1000, this.last + 1);
    return fromMicros(this.last);
  }
}

/** A new call's creation instant taken by another gateway this many times in a row is not a coincidence. */
const MAX_TRIES = 5;

/**
 * Inserts a new call; when another gateway of a cluster took the same `created_at` microsecond
 * (`taken` tells from the insert's error), takes the clock's next instant and tries again. The row
 * is updated in place, so the caller holds the instant that was stored.
 */
export async function insertWithUniqueCreatedAt<R extends { created_at: string; updated_at: string }, T>(
  clock: CreationClock,
  row: R,
  insert: (row: R) => Promise<T>,
  taken: (err: unknown) => boolean,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await insert(row);
    } catch (err) {
      if (attempt >= MAX_TRIES || !taken(err)) throw err;
      row.created_at = row.updated_at = clock.next();
    }
  }
}

const ISO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i;

export function toMicros(iso: string): number {
  const m = ISO.exec(iso);
  const ms = Date.parse(iso);
  if (!m || Number.isNaN(ms)) throw new RangeError(`not an ISO 8601 date-time: ${iso}`);
  const extra = Number(((m[2] ?? '') + '000000').slice(3, 6));
  return ms * 1000 + extra;
}

export function fromMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  return new Date(ms).toISOString().replace('Z', `${String(micros % 1000).padStart(3, '0')}Z`);
}

/** Any ISO date-time, in the stored form (UTC, six fraction digits) so it compares as text. */
export const normalizeTimestamp = (iso: string): string => fromMicros(toMicros(iso));
