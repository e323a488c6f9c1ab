import type { DeliveryQuery, WebhooksRepo } from '../store/webhooks-repo.js';
import { toWebhookDelivery, type WebhookDelivery } from './delivery.js';
import { groupByEvent, type WebhookEventDelivery } from './event-log.js';

/** One page of the log (`GET /v1/webhook-deliveries`). */
export interface DeliveryPage {
  /** Its attempts, newest first. */
  deliveries: WebhookDelivery[];
  /** The page's events, each with all its attempts (those on other pages too) and the job still delivering it. */
  events: WebhookEventDelivery[];
  /** The cursor of the next page, null on the last. */
  nextBefore: number | null;
}

/** A page of the log, newest first; `nextBefore` is the cursor of the next page, null on the last. */
export async function deliveryPage(repo: WebhooksRepo, query: DeliveryQuery, maxAttempts: number): Promise<DeliveryPage> {
  const rows = await repo.listDeliveries({ ...query, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const [all, pending] = await Promise.all([repo.attemptsOfEvents(page), repo.pendingJobsOf(page.map((r) => r.eventId))]);
  return {
    deliveries: page.map(toWebhookDelivery),
    events: groupByEvent(page, all, pending, maxAttempts),
    nextBefore: rows.length > query.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}
