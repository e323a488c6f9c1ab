import type { Kysely } from 'kysely';

/**
 * The task a call's assistant was given (issue 27) and the outcome it reported: at most one per call,
 * a later task replacing it. `outcome` is JSON ({ achieved, summary, facts }); null until reported.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('assistant_tasks')
    .addColumn('call_id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('instructions', 'text', (c) => c.notNull())
    .addColumn('voice', 'varchar(16)')
    .addColumn('hang_up_when_done', 'integer', (c) => c.notNull())
    .addColumn('given_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('reported_at', 'varchar(32)')
    .execute();
}
