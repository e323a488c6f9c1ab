import type { WebhookDeliveryRow } from '../store/webhooks-repo.js';
import type { QueuedJob } from './queue.js';
import { ATTEMPT_OUTCOMES, type AttemptOutcome } from './sender.js';

/** The body POSTed for every call event (contract.md, Webhooks). */
export interface WebhookBody {
  event: string;
  eventId: string;
  occurredAt: string;
  receivedAt: string;
  payload: Record<string, unknown>;
  /** The Call as the REST interface shows it. */
  call: object;
  /** The assistant's message, once it took one on this call. */
  message?: object;
  /** What was said while the assistant was on the call; on the event that ends it. */
  transcript?: object[];
  /** The task the call's assistant was given, and how it went; on the event that ends the call. */
  task?: object;
  outcome?: object;
}

export interface WebhookJobInput {
  callId: string;
  eventId: string;
  event: string;
  /** The call's own webhookUrl, else the default of the settings. */
  url: string;
  body: WebhookBody;
}

/** A stored job, as `release()` takes it once the transaction that stored it has committed; `held` false: another node's to claim. */
export type StoredWebhookJob = QueuedJob & { held: boolean };

/** One attempt, as `GET /v1/webhook-deliveries` shows it. */
export interface WebhookDelivery {
  id: number;
  callId: string;
  eventId: string;
  event: string;
  url: string;
  attempt: number;
  ok: boolean;
  error?: string;
  at: string;
  /** The delivery a person asked to send again; this attempt belongs to that new delivery. */
  retryOf?: number;
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  /** How a failed attempt ended; absent when delivered or recorded before reasons were kept. */
  errorKind?: Exclude<AttemptOutcome, 'ok'>;
  durationMs: number;
  /** The first bytes of the receiver's answer (at most 1 KiB), when it answered. */
  answer?: string;
  /** The attempt this one scheduled next. */
  nextAttemptAt?: string;
  /** The gateway gave up after this failed attempt. */
  gaveUp: boolean;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export const toWebhookDelivery = (row: WebhookDeliveryRow): WebhookDelivery => ({
  id: row.id,
  callId: row.callId,
  eventId: row.eventId,
  event: row.event,
  url: row.url,
  attempt: row.attempt,
  ok: row.ok,
  ...(row.error === null ? {} : { error: row.error }),
  at: row.at,
  ...(row.retryOf === null ? {} : { retryOf: row.retryOf }),
  ...(row.statusCode === null ? {} : { statusCode: row.statusCode }),
  ...(isErrorKind(row.errorKind) ? { errorKind: row.errorKind } : {}),
  durationMs: row.durationMs,
  ...(row.answer === null ? {} : { answer: row.answer }),
  ...(row.nextAt === null ? {} : { nextAttemptAt: row.nextAt }),
  gaveUp: row.gaveUp,
});

function isErrorKind(kind: string | null): kind is Exclude<AttemptOutcome, 'ok'> {
  return kind !== null && kind !== 'ok' && (ATTEMPT_OUTCOMES as readonly string[]).includes(kind);
}
