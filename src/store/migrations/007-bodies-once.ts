import { sql, type Kysely } from 'kysely';

/**
 * Webhook attempts kept the body they sent on every row (migration 006); from now on it is kept once
 * per delivery, on its first attempt's row. Later rows of the same event and URL, which sent the same
 * body, drop their copy; they are still sent again with the body of the first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update webhook_deliveries set body = null
    where attempt > 1 and body is not null and exists (
      select 1 from webhook_deliveries first
      where first.call_id = webhook_deliveries.call_id and first.event_id = webhook_deliveries.event_id
        and first.url = webhook_deliveries.url and first.body is not null and first.id < webhook_deliveries.id)`.execute(db);
}
