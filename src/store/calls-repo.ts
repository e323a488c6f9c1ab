import { sql, type Selectable, type Transaction } from 'kysely';
import { FINAL_CALL_STATES } from '../calls/state.js';
import type { Db } from './database.js';
import type { CallEventsTable, CallsTable, Tables, TranscriptLinesTable } from './schema.js';

export type CallRow = CallsTable;
export type CallEventRow = Omit<CallEventsTable, 'seq'>;
export type TranscriptLineRow = Omit<TranscriptLinesTable, 'seq'>;
export type Executor = Db | Transaction<Tables>;

export interface CallQuery {
  deviceId?: string | undefined;
  state?: string | undefined;
  direction?: string | undefined;
  /** Normalised created_at: calls created strictly before it. */
  before?: string | undefined;
  /** Normalised created_at: calls created strictly after it. */
  after?: string | undefined;
  /** Dialable characters the number must contain, separators ignored. */
  remoteNumber?: string | undefined;
  limit: number;
}

/** The stored number without the separators people type (numbers reported by phones may keep them). */
const digitsOf = sql<string>`replace(replace(replace(replace(replace(replace(remote_number, ' ', ''), '-', ''), '.', ''), '(', ''), ')', ''), '/', '')`;

export class CallsRepo {
  constructor(readonly db: Db) {}

  transaction<T>(work: (tx: Transaction<Tables>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /**
   * Whether an insert failed because another call has the same `created_at` (its unique key): several
   * gateways on one database may create calls at the same microsecond. One process never does.
   */
  createdAtTaken(err: unknown): boolean {
    const e = err as { code?: unknown; constraint?: unknown };
    return e.code === '23505' && e.constraint === 'calls_created_at';
  }

  async insert(row: CallRow, ex: Executor = this.db): Promise<void> {
    await ex.insertInto('calls').values(row).execute();
  }

  get(id: string, ex: Executor = this.db): Promise<CallRow | undefined> {
    return ex.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byNativeId(deviceId: string, nativeCallId: string, ex: Executor = this.db): Promise<CallRow | undefined> {
    return ex
      .selectFrom('calls')
      .selectAll()
      .where('device_id', '=', deviceId)
      .where('native_call_id', '=', nativeCallId)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
  }

  /** Calls of a phone that are not in a final state. */
  openCalls(deviceId?: string): Promise<CallRow[]> {
    let q = this.db.selectFrom('calls').selectAll().where('state', 'not in', [...FINAL_CALL_STATES]);
    if (deviceId) q = q.where('device_id', '=', deviceId);
    return q.orderBy('created_at', 'asc').execute();
  }

  async update(id: string, patch: Partial<Omit<CallRow, 'id'>>, ex: Executor = this.db): Promise<void> {
    await ex.updateTable('calls').set(patch).where('id', '=', id).execute();
  }

  list(query: CallQuery): Promise<CallRow[]> {
    let q = this.db.selectFrom('calls').selectAll();
    if (query.deviceId) q = q.where('device_id', '=', query.deviceId);
    if (query.state) q = q.where('state', '=', query.state);
    if (query.direction) q = q.where('direction', '=', query.direction);
    if (query.before) q = q.where('created_at', '<', query.before);
    if (query.after) q = q.where('created_at', '>', query.after);
    // The search holds only dialable characters (the schema's check), none of LIKE's wildcards.
    if (query.remoteNumber) q = q.where(digitsOf, 'like', `%${query.remoteNumber}%`);
    return q.orderBy('created_at', 'desc').limit(query.limit).execute();
  }

  /** How many calls the log holds in each state: one grouped pass over the table. */
  async countByState(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('calls').select(['state', (eb) => eb.fn.countAll().as('count')]).groupBy('state').execute();
    // PostgreSQL returns count(*) as a bigint, which its driver hands over as text.
    return new Map(rows.map((r) => [r.state, Number(r.count)]));
  }

  latestCreatedAt(): Promise<string | undefined> {
    return this.db
      .selectFrom('calls')
      .select('created_at')
      .orderBy('created_at', 'desc')
      .executeTakeFirst()
      .then((r) => r?.created_at);
  }

  /** An event of this phone: event ids are the phone's own, so another phone's may repeat them. */
  eventById(deviceId: string, eventId: string, ex: Executor = this.db): Promise<Selectable<CallEventsTable> | undefined> {
    return ex.selectFrom('call_events').selectAll().where('device_id', '=', deviceId).where('event_id', '=', eventId).executeTakeFirst();
  }

  async insertEvent(row: CallEventRow, ex: Executor = this.db): Promise<void> {
    await ex.insertInto('call_events').values(row).execute();
  }

  events(callId: string): Promise<Selectable<CallEventsTable>[]> {
    return this.db.selectFrom('call_events').selectAll().where('call_id', '=', callId).orderBy('seq', 'asc').execute();
  }

  async insertTranscriptLine(row: TranscriptLineRow): Promise<void> {
    await this.db.insertInto('transcript_lines').values(row).execute();
  }

  transcript(callId: string): Promise<Selectable<TranscriptLinesTable>[]> {
    return this.db.selectFrom('transcript_lines').selectAll().where('call_id', '=', callId).orderBy('seq', 'asc').execute();
  }
}
