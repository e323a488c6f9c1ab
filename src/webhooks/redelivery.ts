import { GatewayError, notFound } from '../errors.js';
import type { Logger } from '../log.js';
import type { WebhooksRepo } from '../store/webhooks-repo.js';
import { iso, type StoredWebhookJob } from './delivery.js';
import type { JobContent } from './queue.js';

/** A delivery scheduled again by `retry()`: its first attempt goes out at `dueAt`. */
export interface ScheduledRetry {
  retryOf: number;
  callId: string;
  eventId: string;
  event: string;
  url: string;
  attempt: number;
  dueAt: string;
}

/** Stores a job's content as a new delivery (attempt 1, due now) and schedules it. */
export type StoreJob = (callId: string, content: JobContent) => Promise<StoredWebhookJob>;

/**
 * Sends the event of a recorded attempt again, with the body it sent, to the URL it went to: a new
 * delivery whose attempts are numbered from 1 again (up to 4, retried like any other) and name the
 * row it came from in `retryOf`. Refused (409) while the event is still being retried to that URL,
 * and for attempts recorded before bodies were kept.
 */
export class Redelivery {
  /** Retries are scheduled one at a time, so two clicks cannot both find the event idle. */
  private retrying: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly repo: WebhooksRepo,
    private readonly log: Logger,
    private readonly store: StoreJob,
  ) {}

  retry(deliveryId: number): Promise<ScheduledRetry> {
    const next = this.retrying.then(() => this.schedule(deliveryId));
    this.retrying = next.catch(() => undefined);
    return next;
  }

  private async schedule(deliveryId: number): Promise<ScheduledRetry> {
    const row = await this.repo.deliveryWithBody(deliveryId);
    if (!row) throw notFound('Webhook delivery');
    const pending = await this.repo.pendingJob(row.callId, row.eventId, row.url);
    if (pending) {
      throw new GatewayError('CONFLICT', `This event is still being delivered to this URL: attempt ${pending.attempt} is due at ${pending.dueAt}`);
    }
    if (row.body === null) throw new GatewayError('CONFLICT', 'This attempt was recorded before the gateway kept what it sent, so it cannot be sent again');
    const job = await this.store(row.callId, { eventId: row.eventId, event: row.event, url: row.url, body: row.body, retryOf: row.id });
    this.log.info({ callId: row.callId, eventId: row.eventId, event: row.event, retryOf: row.id }, 'webhook delivery scheduled again');
    return { retryOf: row.id, callId: row.callId, eventId: row.eventId, event: row.event, url: row.url, attempt: job.attempt, dueAt: iso(job.dueAt) };
  }
}
