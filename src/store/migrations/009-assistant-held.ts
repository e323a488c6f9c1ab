import type { Kysely } from 'kysely';

/**
 * A call remembers that the built-in assistant holds it (`assistant_at`: since when; null once it
 * was handed back or failed), so a node that takes the call over (another node of a cluster, or
 * this gateway after a restart) puts the assistant back on it instead of leaving the caller in silence.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('assistant_at', 'varchar(32)').execute();
}
