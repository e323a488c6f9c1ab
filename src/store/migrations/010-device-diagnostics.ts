import type { Kysely } from 'kysely';

/**
 * The latest self-test report of each phone (phone protocol extension 1.3): one row per phone,
 * replaced by each report, and removed with the phone (the foreign key; SQLite enforces it, the
 * store turns foreign keys on).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('device_diagnostics')
    .addColumn('device_id', 'varchar(40)', (c) => c.primaryKey().references('devices.id').onDelete('cascade'))
    .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('report', 'text', (c) => c.notNull())
    .execute();
}
