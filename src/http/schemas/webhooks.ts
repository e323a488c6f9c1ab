import { z } from '@hono/zod-openapi';
import { EVENT_NAMES } from '../../calls/state.js';
import { LIMITS } from '../../limits.js';
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
  })
  .openapi('WebhookDelivery');

export const WebhookDeliveryList = z
  .object({
    deliveries: z.array(WebhookDelivery).openapi({ description: 'one row per attempt, newest first' }),
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
