import { createRoute } from '@hono/zod-openapi';
import type { WebhookDispatcher } from '../../webhooks/index.js';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonContent } from '../openapi.js';
import { WebhookDeliveryIdParam, WebhookDeliveryList, WebhookDeliveryQuery, WebhookRetry } from '../schemas/webhooks.js';

export function registerWebhookDeliveryRoutes(app: GatewayApp, { webhooks }: { webhooks: WebhookDispatcher }): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/webhook-deliveries',
      operationId: 'listWebhookDeliveries',
      tags: ['Webhooks'],
      summary: 'The webhook log: one row per delivery attempt, newest first, filtered and paged, with the events they belong to',
      request: { query: WebhookDeliveryQuery },
      responses: { 200: jsonContent(WebhookDeliveryList, 'A page of attempts; pass nextBefore as before for the next page'), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await webhooks.listDeliveries(c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/webhook-deliveries/{id}/retry',
      operationId: 'retryWebhookDelivery',
      tags: ['Webhooks'],
      summary: 'Send the event of an attempt again: a new delivery, attempts numbered from 1, to the same URL with the same body',
      description:
        'The new delivery is retried like any other (5 s, 30 s, 2 min) and each of its attempts names this row in `retryOf`. ' +
        '409 CONFLICT while the event is still being retried to that URL (the message says when the next attempt is due), ' +
        'and for attempts recorded before the gateway kept what it sent.',
      request: { params: WebhookDeliveryIdParam },
      responses: { 202: jsonContent(WebhookRetry, 'Scheduled; its attempts appear in the log'), ...errorResponses(400, 401, 404, 409) },
    }),
    async (c) => c.json(await webhooks.retry(c.req.valid('param').id), 202),
  );
}
