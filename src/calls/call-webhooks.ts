import type { Db } from '../store/database.js';
import type { CallRow } from '../store/index.js';
import type { StoredWebhookJob, WebhookDispatcher, WebhookJobInput } from '../webhooks/index.js';
import type { Call, CallEvent } from './model.js';

/**
 * The delivery rules of a call's events: each goes to the call's own `webhookUrl`, else to the
 * settings' default, and to none without either. Its body is the timeline entry and the call; the
 * fields other domains add are the webhooks' own (`enrichBodies`).
 */
export class CallWebhooks {
  constructor(
    private readonly webhooks: WebhookDispatcher,
    private readonly defaultUrl: () => string | null,
  ) {}

  /** The job an event sends, or null when no URL applies; read before the transaction that stores it. */
  async jobFor(row: CallRow, entry: CallEvent, call: Call, ends: boolean): Promise<WebhookJobInput | null> {
    const url = row.webhook_url ?? this.defaultUrl();
    if (!url) return null;
    const body = await this.webhooks.enrich(row.id, ends, { ...entry, call });
    return { callId: row.id, eventId: entry.eventId, event: entry.event, url, body };
  }

  /** Stores the job in the event's transaction; `release` it once that has committed. */
  enqueue(job: WebhookJobInput, tx: Db): Promise<StoredWebhookJob> {
    return this.webhooks.enqueue(job, tx);
  }

  release(job: StoredWebhookJob): void {
    this.webhooks.release(job);
  }
}
