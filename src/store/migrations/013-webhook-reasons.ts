import type { Kysely } from 'kysely';

/**
 * Why a webhook attempt failed, kept with it (issue 26, point 3): how it ended (`error_kind`, the
 * sender's outcome), the first bytes of the receiver's answer (bounded, secrets taken out), when the
 * next attempt was scheduled (`next_at`, null when none was) and whether the gateway gave up
 * (`gave_up`, 1 on the failed last attempt). Older rows keep nulls and 0: their reasons were not kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('error_kind', 'varchar(20)').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('answer', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('next_at', 'varchar(40)').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('gave_up', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // The log groups attempts by event: every attempt of the events on a page is read by event id.
  await db.schema.createIndex('webhook_deliveries_event_id').on('webhook_deliveries').column('event_id').execute();
}
