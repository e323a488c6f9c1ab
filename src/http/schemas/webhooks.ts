import { z } from '@hono/zod-openapi';
import { LIMITS } from '../../limits.js';
import { DateTime, Limit } from './common.js';

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
  })
  .openapi('WebhookDelivery');

export const WebhookDeliveryList = z
  .object({ deliveries: z.array(WebhookDelivery).openapi({ description: 'one row per attempt, newest first' }) })
  .openapi('WebhookDeliveryList');

export const WebhookDeliveryQuery = z.object({
  callId: z.string().min(1).max(100).optional().openapi({ description: 'only the attempts for this call' }),
  limit: Limit,
});
