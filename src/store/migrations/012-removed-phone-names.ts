import type { Kysely } from 'kysely';

/**
 * The name of a removed phone, kept on its calls: removing a phone deletes its row, and the call log
 * would otherwise show only its id. Null while the phone is paired (its row has the current name).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('device_name', 'varchar(200)').execute();
}
