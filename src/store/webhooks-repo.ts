import { sql, type Selectable } from 'kysely';
import type { Db } from './database.js';
import type { WebhookDeliveriesTable } from './schema.js';

export interface WebhookJobRow {
  id: number;
  callId: string;
  eventId: string;
  event: string;
  url: string;
  /** The exact JSON text that every attempt sends. */
  body: string;
  /** Number of the next attempt. */
  attempt: number;
  dueAt: string;
  /** The delivery row a person asked to send again, else null. */
  retryOf: number | null;
}

/** `claimedBy`: the node that holds the job (several gateways); none on one gateway. */
export type NewWebhookJob = Omit<WebhookJobRow, 'id'> & { claimedBy?: string | null };

export interface WebhookDeliveryRow {
  id: number;
  callId: string;
  eventId: string;
  event: string;
  url: string;
  attempt: number;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: string;
  retryOf: number | null;
  /** How a failed attempt ended (sender outcome); null when it was delivered, or recorded before reasons were kept. */
  errorKind: string | null;
  /** The first bytes of the receiver's answer, bounded; null when none came. */
  answer: string | null;
  /** The next attempt this one scheduled; null when none. */
  nextAt: string | null;
  /** The gateway gave up after this failed attempt. */
  gaveUp: boolean;
}

/**
 * A new attempt row, with the exact body it sent on a delivery's first attempt (kept so that it can
 * be sent again), null on later attempts of the same delivery: the body is stored once.
 */
export type NewWebhookDelivery = Omit<WebhookDeliveryRow, 'id' | WhyFields> & Partial<Pick<WebhookDeliveryRow, WhyFields>> & { body: string | null };
/** Kept since migration 013; a row stored without them reads as before. */
type WhyFields = 'errorKind' | 'answer' | 'nextAt' | 'gaveUp';

export interface DeliveryQuery {
  callId?: string | undefined;
  event?: string | undefined;
  ok?: boolean | undefined;
  /** Rows with a smaller id (older): the paging cursor. */
  before?: number | undefined;
  limit: number;
}

const JOB_COLUMNS = ['id', 'call_id', 'event_id', 'event', 'url', 'body', 'attempt', 'due_at', 'retry_of'] as const;
const DELIVERY_COLUMNS = [
  'id',
  'call_id',
  'event_id',
  'event',
  'url',
  'attempt',
  'ok',
  'status_code',
  'error',
  'duration_ms',
  'at',
  'retry_of',
  'error_kind',
  'answer',
  'next_at',
  'gave_up',
] as const;

type JobRecord = { id: number; call_id: string; event_id: string; event: string; url: string; body: string; attempt: number; due_at: string; retry_of: number | null };
/** A delivery row as selected for the log (without the body it sent). */
type DeliveryRecord = Omit<Selectable<WebhookDeliveriesTable>, 'body'>;

const toDelivery = (r: DeliveryRecord): WebhookDeliveryRow => ({
  id: Number(r.id),
  callId: r.call_id,
  eventId: r.event_id,
  event: r.event,
  url: r.url,
  attempt: Number(r.attempt),
  ok: Number(r.ok) === 1,
  statusCode: r.status_code === null ? null : Number(r.status_code),
  error: r.error,
  durationMs: Number(r.duration_ms),
  at: r.at,
  retryOf: r.retry_of === null ? null : Number(r.retry_of),
  errorKind: r.error_kind,
  answer: r.answer,
  nextAt: r.next_at,
  gaveUp: Number(r.gave_up) === 1,
});

const toJob = (r: JobRecord): WebhookJobRow => ({
  id: Number(r.id),
  callId: r.call_id,
  eventId: r.event_id,
  event: r.event,
  url: r.url,
  body: r.body,
  attempt: Number(r.attempt),
  dueAt: r.due_at,
  retryOf: r.retry_of === null ? null : Number(r.retry_of),
});

/** Webhook jobs waiting for their next attempt, and the log of every attempt made. */
export class WebhooksRepo {
  constructor(private readonly db: Db) {}

  /** Runs fn against a repository bound to one transaction. */
  transaction<T>(fn: (repo: WebhooksRepo) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => fn(new WebhooksRepo(trx)));
  }

  /** Pass the caller's transaction as db to enqueue together with the event it stores. */
  async insertJob(job: NewWebhookJob, db: Db = this.db): Promise<number> {
    const row = await db
      .insertInto('webhook_jobs')
      .values({
        call_id: job.callId,
        event_id: job.eventId,
        event: job.event,
        url: job.url,
        body: job.body,
        attempt: job.attempt,
        due_at: job.dueAt,
        retry_of: job.retryOf,
        claimed_by: job.claimedBy ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /**
   * Several gateways: stores a job held by `claimant`, the node that stored it, unless an earlier
   * first attempt of the same call is held elsewhere or by no one (the phone moved between nodes):
   * then the job waits unclaimed behind it, so that first attempts still follow the timeline.
   */
  async insertHeldJob(job: NewWebhookJob, claimant: string, db: Db = this.db): Promise<{ id: number; held: boolean }> {
    const waits = await db
      .selectFrom('webhook_jobs')
      .select('id')
      .where('call_id', '=', job.callId)
      .where('attempt', '=', 1)
      .where(sql<boolean>`claimed_by is distinct from ${claimant}`)
      .limit(1)
      .executeTakeFirst();
    const held = waits === undefined;
    return { id: await this.insertJob({ ...job, claimedBy: held ? claimant : null }, db), held };
  }

  /**
   * Stored jobs after `afterId`, oldest first, without their bodies: what the scheduler keeps in
   * memory. With `heldBy` (several gateways), only the jobs that node holds.
   */
  async jobsAfter(afterId: number, limit: number, heldBy?: string): Promise<Array<Omit<WebhookJobRow, 'body' | 'eventId' | 'event' | 'retryOf'>>> {
    let q = this.db.selectFrom('webhook_jobs').select(['id', 'call_id', 'url', 'attempt', 'due_at']).where('id', '>', afterId);
    if (heldBy !== undefined) q = q.where('claimed_by', '=', heldBy);
    const rows = await q.orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ id: Number(r.id), callId: r.call_id, url: r.url, attempt: Number(r.attempt), dueAt: r.due_at }));
  }

  /** One job with its body, or null once it is gone. */
  async jobById(id: number): Promise<WebhookJobRow | null> {
    const row = await this.db.selectFrom('webhook_jobs').select(JOB_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row ? toJob(row) : null;
  }

  /** With `claimant` (several gateways), only while that node still holds the job: one that was taken over is the new holder's. */
  async rescheduleJob(id: number, next: { attempt: number; dueAt: string }, claimant?: string): Promise<void> {
    let q = this.db.updateTable('webhook_jobs').set({ attempt: next.attempt, due_at: next.dueAt }).where('id', '=', id);
    if (claimant !== undefined) q = q.where('claimed_by', '=', claimant);
    await q.execute();
  }

  async deleteJob(id: number, claimant?: string): Promise<void> {
    let q = this.db.deleteFrom('webhook_jobs').where('id', '=', id);
    if (claimant !== undefined) q = q.where('claimed_by', '=', claimant);
    await q.execute();
  }

  async insertDelivery(d: NewWebhookDelivery): Promise<number> {
    const row = await this.db
      .insertInto('webhook_deliveries')
      .values({
        call_id: d.callId,
        event_id: d.eventId,
        event: d.event,
        url: d.url,
        attempt: d.attempt,
        ok: d.ok ? 1 : 0,
        status_code: d.statusCode,
        error: d.error,
        duration_ms: d.durationMs,
        at: d.at,
        retry_of: d.retryOf,
        body: d.body,
        error_kind: d.errorKind ?? null,
        answer: d.answer ?? null,
        next_at: d.nextAt ?? null,
        gave_up: d.gaveUp ? 1 : 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** Newest first. */
  async listDeliveries(query: DeliveryQuery): Promise<WebhookDeliveryRow[]> {
    let q = this.db.selectFrom('webhook_deliveries').select(DELIVERY_COLUMNS);
    if (query.callId !== undefined) q = q.where('call_id', '=', query.callId);
    if (query.event !== undefined) q = q.where('event', '=', query.event);
    if (query.ok !== undefined) q = q.where('ok', '=', query.ok ? 1 : 0);
    if (query.before !== undefined) q = q.where('id', '<', query.before);
    return (await q.orderBy('id', 'desc').limit(query.limit).execute()).map(toDelivery);
  }

  /** Every attempt of these events (a call's event id, to any URL, sent again or not), oldest first. */
  async attemptsOfEvents(events: ReadonlyArray<{ callId: string; eventId: string }>): Promise<WebhookDeliveryRow[]> {
    if (events.length === 0) return [];
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(DELIVERY_COLUMNS)
      .where('event_id', 'in', [...new Set(events.map((e) => e.eventId))])
      .orderBy('id')
      .execute();
    const wanted = new Set(events.map((e) => `${e.callId} ${e.eventId}`));
    return rows.map(toDelivery).filter((r) => wanted.has(`${r.callId} ${r.eventId}`));
  }

  /** The jobs still delivering these events (an attempt due, or one being made). */
  async pendingJobsOf(eventIds: readonly string[]): Promise<Array<{ callId: string; eventId: string; url: string; attempt: number; dueAt: string }>> {
    if (eventIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('webhook_jobs')
      .select(['call_id', 'event_id', 'url', 'attempt', 'due_at'])
      .where('event_id', 'in', [...new Set(eventIds)])
      .execute();
    return rows.map((r) => ({ callId: r.call_id, eventId: r.event_id, url: r.url, attempt: Number(r.attempt), dueAt: r.due_at }));
  }

  /**
   * One attempt with the body it sent: its own, or (a later attempt) the one kept on an earlier row
   * of the same event and URL, which all send the same body. Null for attempts recorded before
   * bodies were kept.
   */
  async deliveryWithBody(id: number): Promise<(WebhookDeliveryRow & { body: string | null }) | undefined> {
    const row = await this.db.selectFrom('webhook_deliveries').select([...DELIVERY_COLUMNS, 'body']).where('id', '=', id).executeTakeFirst();
    if (!row || row.body !== null) return row ? { ...toDelivery(row), body: row.body } : undefined;
    const first = await this.db
      .selectFrom('webhook_deliveries')
      .select('body')
      .where('call_id', '=', row.call_id)
      .where('event_id', '=', row.event_id)
      .where('url', '=', row.url)
      .where('body', 'is not', null)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return { ...toDelivery(row), body: first?.body ?? null };
  }

  /** The job still delivering this event to this URL (retries pending), if any. */
  async pendingJob(callId: string, eventId: string, url: string): Promise<{ attempt: number; dueAt: string } | undefined> {
    const row = await this.db
      .selectFrom('webhook_jobs')
      .select(['attempt', 'due_at'])
      .where('call_id', '=', callId)
      .where('event_id', '=', eventId)
      .where('url', '=', url)
      .executeTakeFirst();
    return row ? { attempt: Number(row.attempt), dueAt: row.due_at } : undefined;
  }
}
