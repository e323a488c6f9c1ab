import { sql, type Kysely } from 'kysely';
import type { Dialect } from './index.js';

/**
 * What the console's day needs (issue 13): why a call ended; the body and origin of each webhook
 * attempt, so one can be sent again; a read mark on the assistant's messages; one-time password
 * reset links. Calls that ended earlier get their cause from their timeline.
 */
export const operatorDay =
  (dialect: Dialect) =>
  async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('calls').addColumn('end_cause', 'varchar(10)').execute();
    await db.schema.alterTable('calls').addColumn('end_reason', 'text').execute();

    await db.schema.alterTable('webhook_jobs').addColumn('retry_of', 'integer').execute();
    await db.schema.alterTable('webhook_deliveries').addColumn('retry_of', 'integer').execute();
    // Attempts recorded before this migration keep no body and cannot be sent again.
    await db.schema.alterTable('webhook_deliveries').addColumn('body', 'text').execute();
    await db.schema.createIndex('webhook_deliveries_ok').on('webhook_deliveries').columns(['ok', 'id']).execute();
    await db.schema.createIndex('webhook_jobs_event').on('webhook_jobs').columns(['call_id', 'event_id']).execute();

    await db.schema.alterTable('assistant_messages').addColumn('read_at', 'varchar(32)').execute();

    await db.schema
      .createTable('password_resets')
      .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();

    await backfillEndCauses(db, dialect);
  };

/**
 * The first final event of each final call gives the call its cause and reason, as CallService
 * records them from now on (calls/end-cause.ts), written here in SQL so the migration stays as shipped.
 */
async function backfillEndCauses(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const field = (name: 'cause' | 'reason') => (dialect === 'postgres' ? sql.raw(`(e.payload::jsonb ->> '${name}')`) : sql.raw(`json_extract(e.payload, '$.${name}')`));
  const ending = sql`from call_events e where e.call_id = calls.id and e.event in ('call.disconnected', 'call.rejected', 'call.failed') order by e.seq limit 1`;
  await sql`update calls set
    end_cause = (select case e.event when 'call.rejected' then 'rejected' when 'call.failed' then 'failed'
      else case when ${field('cause')} in ('local', 'remote', 'busy', 'rejected', 'missed', 'error', 'other') then ${field('cause')} else 'other' end end ${ending}),
    end_reason = (select nullif(substr(trim(${field('reason')}), 1, 500), '') ${ending})
    where state in ('ended', 'rejected', 'failed')`.execute(db);
}
