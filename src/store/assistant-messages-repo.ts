import type { Db } from './database.js';
import type { AssistantMessagesTable } from './schema.js';

export type AssistantMessageRow = AssistantMessagesTable;

export class AssistantMessagesRepo {
  constructor(readonly db: Db) {}

  /** One message per call: a second one replaces the first. */
  async upsert(row: AssistantMessageRow): Promise<void> {
    const { call_id: _callId, ...rest } = row;
    await this.db
      .insertInto('assistant_messages')
      .values(row)
      .onConflict((oc) => oc.column('call_id').doUpdateSet(rest))
      .execute();
  }

  byCall(callId: string): Promise<AssistantMessageRow | undefined> {
    return this.db.selectFrom('assistant_messages').selectAll().where('call_id', '=', callId).executeTakeFirst();
  }

  /** Sets (or clears) the read mark; the message after it, or undefined when the call has none. */
  async setReadAt(callId: string, readAt: string | null): Promise<AssistantMessageRow | undefined> {
    const r = await this.db.updateTable('assistant_messages').set({ read_at: readAt }).where('call_id', '=', callId).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0 ? this.byCall(callId) : undefined;
  }

  /** Newest first. */
  list(limit: number): Promise<AssistantMessageRow[]> {
    return this.db.selectFrom('assistant_messages').selectAll().orderBy('taken_at', 'desc').orderBy('call_id', 'desc').limit(limit).execute();
  }
}
