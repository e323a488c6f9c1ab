import type { Db } from './database.js';
import type { AssistantTasksTable } from './schema.js';

export type AssistantTaskRow = AssistantTasksTable;

export class AssistantTasksRepo {
  constructor(readonly db: Db) {}

  /** A new task for the call: it replaces an earlier one, and with it the earlier outcome. */
  async give(row: Omit<AssistantTaskRow, 'outcome' | 'reported_at'>): Promise<void> {
    const { call_id: _callId, ...rest } = row;
    const values = { ...row, outcome: null, reported_at: null };
    await this.db
      .insertInto('assistant_tasks')
      .values(values)
      .onConflict((oc) => oc.column('call_id').doUpdateSet({ ...rest, outcome: null, reported_at: null }))
      .execute();
  }

  byCall(callId: string): Promise<AssistantTaskRow | undefined> {
    return this.db.selectFrom('assistant_tasks').selectAll().where('call_id', '=', callId).executeTakeFirst();
  }

  /** The outcome the assistant reported; a second report replaces the first. */
  async report(callId: string, outcome: string, reportedAt: string): Promise<void> {
    await this.db.updateTable('assistant_tasks').set({ outcome, reported_at: reportedAt }).where('call_id', '=', callId).execute();
  }
}
