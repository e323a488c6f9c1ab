import type { WebhookDeliveryRow } from '../store/webhooks-repo.js';
import { toWebhookDelivery, type WebhookDelivery } from './delivery.js';
import type { EventDeliveryState } from './outcomes.js';

/**
 * One event delivered to one URL, with every attempt made for it (those of a delivery someone sent
 * again included): what the console shows as one row, with one Retry.
 */
export interface WebhookEventDelivery {
  callId: string;
  eventId: string;
  event: string;
  url: string;
  /** `delivered`: the last attempt was; `retrying`: an attempt is due; `gave_up`: the last failed and none is due; `failed`: the last failed, recorded before the gateway kept whether it gave up. */
  state: EventDeliveryState;
  /** Oldest first. */
  attempts: WebhookDelivery[];
  /** The newest attempt's id: what `POST /v1/webhook-deliveries/{id}/retry` takes for this event. */
  lastAttemptId: number;
  /** When the next attempt is due, while one is. */
  nextAttemptAt?: string;
  /** Its number (of maxAttempts), while one is due. */
  nextAttempt?: number;
  gaveUp: boolean;
  maxAttempts: number;
}

type Pending = { callId: string; eventId: string; url: string; attempt: number; dueAt: string };

const keyOf = (r: { callId: string; eventId: string; url: string }): string => JSON.stringify([r.callId, r.eventId, r.url]);

/**
 * Groups the attempts of a page's events (`rows`, every attempt of them, oldest first) in the order
 * the page names them (`order`, its attempts newest first), with the jobs still delivering them.
 */
export function groupByEvent(order: readonly WebhookDeliveryRow[], rows: readonly WebhookDeliveryRow[], pending: readonly Pending[], maxAttempts: number): WebhookEventDelivery[] {
  const attempts = new Map<string, WebhookDeliveryRow[]>();
  for (const row of rows) {
    const list = attempts.get(keyOf(row));
    if (list) list.push(row);
    else attempts.set(keyOf(row), [row]);
  }
  const due = new Map(pending.map((p) => [keyOf(p), p]));
  const seen = new Set<string>();
  const events: WebhookEventDelivery[] = [];
  for (const row of order) {
    const key = keyOf(row);
    if (seen.has(key)) continue;
    seen.add(key);
    const list = attempts.get(key) ?? [row];
    const last = list[list.length - 1]!;
    const job = due.get(key);
    const gaveUp = !job && !last.ok && (last.gaveUp || last.attempt >= maxAttempts);
    const state = job ? 'retrying' : last.ok ? 'delivered' : gaveUp ? 'gave_up' : 'failed';
    events.push({
      callId: row.callId,
      eventId: row.eventId,
      event: row.event,
      url: row.url,
      state,
      attempts: list.map(toWebhookDelivery),
      lastAttemptId: last.id,
      ...(job ? { nextAttemptAt: job.dueAt, nextAttempt: job.attempt } : {}),
      gaveUp,
      maxAttempts,
    });
  }
  return events;
}
