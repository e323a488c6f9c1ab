import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * Event ids are unique per phone, not across phones: each phone names its own events, so one
 * phone repeating another's id must not have its event taken for a duplicate. `call_events` gets
 * the phone of each event (from its call) and `(device_id, event_id)` becomes the unique key.
 */
export const eventsPerDevice =
  (dialect: Dialect) =>
  async (db: Kysely<unknown>): Promise<void> => {
    if (dialect === 'postgres') {
      await sql`alter table call_events add column device_id varchar(40)`.execute(db);
      await sql`update call_events set device_id = calls.device_id from calls where calls.id = call_events.call_id`.execute(db);
      await sql`update call_events set device_id = '' where device_id is null`.execute(db);
      await sql`alter table call_events alter column device_id set not null`.execute(db);
      await sql`alter table call_events drop constraint call_events_event_id_key`.execute(db);
    } else {
      // SQLite cannot drop a column's UNIQUE constraint: the table is rebuilt, rows and seq kept.
      await db.schema
        .createTable('call_events_next')
        .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
        .addColumn('device_id', 'varchar(40)', (c) => c.notNull())
        .addColumn('event_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('call_id', 'varchar(40)', (c) => c.notNull())
        .addColumn('event', 'varchar(40)', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('occurred_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await sql`insert into call_events_next (seq, device_id, event_id, call_id, event, payload, occurred_at, received_at)
        select e.seq, coalesce(c.device_id, ''), e.event_id, e.call_id, e.event, e.payload, e.occurred_at, e.received_at
        from call_events e left join calls c on c.id = e.call_id order by e.seq`.execute(db);
      await db.schema.dropTable('call_events').execute();
      await db.schema.alterTable('call_events_next').renameTo('call_events').execute();
      await db.schema.createIndex('call_events_call').on('call_events').columns(['call_id', 'seq']).execute();
    }
    await db.schema.createIndex('call_events_device_event').on('call_events').columns(['device_id', 'event_id']).unique().execute();
  };
