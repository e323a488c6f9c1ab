import { z } from '@hono/zod-openapi';
import { EVENT_NAMES } from '../../calls/state.js';
import { LIMITS } from '../../limits.js';
import { ERROR_KINDS, EVENT_DELIVERY_STATES } from '../../webhooks/outcomes.js';
import { text } from '../../text.js';
import { DateTime, Limit, RowId } from './common.js';

export const WebhookDelivery = z
  .object({
    id: z.number().int().openapi({ example: 42 }),
    callId: z.string(),
    eventId: z.string().openapi({ description: 'also the `webhook-id` header of every attempt' }),
    event: z.string().openapi({ description: 'an event name', example: 'call.active' }),
    url: z.url().openapi({ example: 'https://example.com/hooks/voice' }),
    attempt: z.number().int().min(1).max(LIMITS.webhookAttempts).openapi({ example: 1 }),
    ok: z.boolean().openapi({ description: 'true when the receiver answered 2xx within 10 s' }),
    error: z
      .string()
      .optional()
      .openapi({ description: 'why a failed attempt failed: the HTTP status, a timeout or the network error', example: 'HTTP 500' }),
    at: DateTime.openapi({ description: 'when the attempt was sent' }),
    retryOf: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'present on the attempts of a delivery someone sent again: the id of the row it was sent again from', example: 41 }),
    statusCode: z.number().int().optional().openapi({ description: "the receiver's HTTP status, when it answered", example: 500 }),
    errorKind: z
      .enum(ERROR_KINDS)
      .optional()
      .openapi({
        description:
          'how a failed attempt ended: `http_error` (answered with a status other than 2xx, see statusCode), `timeout` (no answer within 10 s), ' +
          '`refused` (the gateway did not send it: the address or URL is not allowed), `network_error` (the connection failed). ' +
          'Absent when delivered, and on attempts recorded before reasons were kept.',
      }),
    durationMs: z.number().int().min(0).openapi({ description: 'how long the attempt took, from sending to its answer or failure', example: 84 }),
    answer: z
      .string()
      .max(1024)
      .optional()
      .openapi({ description: "the first bytes (at most 1 KiB) of the receiver's answer, as text; the signature and the secret are cut out", example: '{"error":"database is down"}' }),
    nextAttemptAt: DateTime.optional().openapi({ description: 'the next attempt this one scheduled (a failed attempt that was not the last)' }),
    gaveUp: z.boolean().openapi({ description: 'true on a failed attempt after which the gateway gave up: the last of its delivery' }),
  })
  .openapi('WebhookDelivery');

export const WebhookEventDelivery = z
  .object({
    callId: z.string(),
    eventId: z.string(),
    event: z.string().openapi({ example: 'call.active' }),
    url: z.url(),
    state: z.enum(EVENT_DELIVERY_STATES).openapi({
      description:
        '`delivered`: its last attempt was; `retrying`: an attempt is due (nextAttemptAt); `gave_up`: its last attempt failed and none is due; ' +
        '`failed`: its last attempt failed, recorded before the gateway kept whether it gave up',
    }),
    attempts: z.array(WebhookDelivery).openapi({ description: 'every attempt for this event to this URL, oldest first, those of a delivery sent again included' }),
    lastAttemptId: z.number().int().openapi({ description: 'the newest attempt: pass it to `POST /v1/webhook-deliveries/{id}/retry` to send this event again', example: 140 }),
    nextAttemptAt: DateTime.optional().openapi({ description: 'when the next attempt is due, while one is' }),
    nextAttempt: z.number().int().optional().openapi({ description: 'the number of the attempt that is due', example: 3 }),
    gaveUp: z.boolean().openapi({ description: 'the gateway made its last attempt and gave up' }),
    maxAttempts: z.number().int().openapi({ description: 'attempts per delivery', example: LIMITS.webhookAttempts }),
  })
  .openapi('WebhookEventDelivery');

export const WebhookDeliveryList = z
  .object({
    deliveries: z.array(WebhookDelivery).openapi({ description: 'one row per attempt, newest first' }),
    events: z.array(WebhookEventDelivery).openapi({
      description: "the events of this page's attempts, newest first, each with all its attempts (an event whose attempts span two pages is on both)",
    }),
    nextBefore: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'pass it as `before` for the next (older) page; null on the last page', example: 17 }),
  })
  .openapi('WebhookDeliveryList');

/** `true`/`false` in a query string. */
const QueryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

export const WebhookDeliveryQuery = z.object({
  callId: text().min(1).max(100).optional().openapi({ description: 'only the attempts for this call' }),
  event: z.enum(EVENT_NAMES).optional().openapi({ description: 'only the attempts of this event' }),
  ok: QueryBoolean.optional().openapi({ type: 'string', enum: ['true', 'false'], description: '`true`: only delivered attempts; `false`: only failed ones' }),
  before: RowId.optional().openapi({ type: 'integer', minimum: 1, maximum: LIMITS.rowIdMax, description: 'only attempts older than this row id; pass `nextBefore` of the previous page' }),
  limit: Limit,
});

export const WebhookDeliveryIdParam = z.object({
  id: RowId.openapi({ type: 'integer', minimum: 1, maximum: LIMITS.rowIdMax, param: { name: 'id', in: 'path' }, example: 42 }),
});

export const WebhookRetry = z
  .object({
    retryOf: z.number().int().openapi({ description: 'the row that was sent again' }),
    callId: z.string(),
    eventId: z.string(),
    event: z.string(),
    url: z.url(),
    attempt: z.number().int().openapi({ description: 'the new delivery starts again at attempt 1 (of 4)', example: 1 }),
    dueAt: DateTime.openapi({ description: 'when its first attempt goes out (now)' }),
  })
  .openapi('WebhookRetry');
