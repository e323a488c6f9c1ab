import type { Kysely } from 'kysely';

/** The messages the built-in assistant takes: at most one per call (a second record replaces it). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('assistant_messages')
    .addColumn('call_id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('remote_number', 'varchar(64)', (c) => c.notNull())
    .addColumn('caller_name', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('callback_number', 'varchar(64)', (c) => c.notNull())
    .addColumn('urgency', 'varchar(10)', (c) => c.notNull())
    .addColumn('taken_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('assistant_messages_taken_at').on('assistant_messages').column('taken_at').execute();
}
