import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from './index.js';

export const calls =
  (dialect: Dialect) =>
  async (db: Kysely<unknown>): Promise<void> => {
    const serial = dialect === 'postgres' ? 'serial' : 'integer';
    const autoId = (c: ColumnDefinitionBuilder) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement();

    await db.schema
      .createTable('devices')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('name', 'varchar(120)', (c) => c.notNull())
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull())
      .addColumn('registered_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('last_seen_at', 'varchar(32)')
      .addColumn('latency_ms', 'integer')
      .addColumn('health', 'text')
      .execute();
    await db.schema.createIndex('devices_token_hash').on('devices').column('token_hash').unique().execute();

    await db.schema
      .createTable('pairing_codes')
      .addColumn('code_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('public_url', 'varchar(2048)', (c) => c.notNull())
      .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('used_at', 'varchar(32)')
      .execute();

    await db.schema
      .createTable('calls')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('device_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('remote_number', 'varchar(64)', (c) => c.notNull())
      .addColumn('direction', 'varchar(10)', (c) => c.notNull())
      .addColumn('state', 'varchar(10)', (c) => c.notNull())
      .addColumn('native_call_id', 'varchar(200)')
      .addColumn('webhook_url', 'varchar(2048)')
      .addColumn('metadata', 'text')
      .addColumn('stream', 'text')
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('answered_at', 'varchar(32)')
      .addColumn('ended_at', 'varchar(32)')
      .execute();
    await db.schema.createIndex('calls_created_at').on('calls').column('created_at').unique().execute();
    await db.schema.createIndex('calls_device_created').on('calls').columns(['device_id', 'created_at']).execute();
    await db.schema.createIndex('calls_device_native').on('calls').columns(['device_id', 'native_call_id']).execute();

    await db.schema
      .createTable('call_events')
      .addColumn('seq', serial, autoId)
      .addColumn('event_id', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('call_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('event', 'varchar(40)', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('occurred_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('received_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('call_events_call').on('call_events').columns(['call_id', 'seq']).execute();

    await db.schema
      .createTable('transcript_lines')
      .addColumn('seq', serial, autoId)
      .addColumn('call_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('role', 'varchar(10)', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('transcript_lines_call').on('transcript_lines').columns(['call_id', 'seq']).execute();

    await db.schema
      .createTable('webhook_jobs')
      .addColumn('id', serial, autoId)
      .addColumn('call_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('event_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('event', 'varchar(40)', (c) => c.notNull())
      .addColumn('url', 'varchar(2048)', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('due_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_jobs_due').on('webhook_jobs').column('due_at').execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', serial, autoId)
      .addColumn('call_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('event_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('event', 'varchar(40)', (c) => c.notNull())
      .addColumn('url', 'varchar(2048)', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('ok', 'integer', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_deliveries_call').on('webhook_deliveries').columns(['call_id', 'id']).execute();
  };
