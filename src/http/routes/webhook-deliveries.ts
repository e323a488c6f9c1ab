import { createRoute } from '@hono/zod-openapi';
import type { WebhookDispatcher } from '../../webhooks/index.js';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonContent } from '../openapi.js';
import { WebhookDeliveryList, WebhookDeliveryQuery } from '../schemas/webhooks.js';

export function registerWebhookDeliveryRoutes(app: GatewayApp, { webhooks }: { webhooks: WebhookDispatcher }): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/webhook-deliveries',
      tags: ['Webhooks'],
      summary: 'The webhook log: one row per delivery attempt, newest first',
      request: { query: WebhookDeliveryQuery },
      responses: { 200: jsonContent(WebhookDeliveryList, 'The attempts'), ...errorResponses(400, 401) },
    }),
    async (c) => {
      const { callId, limit } = c.req.valid('query');
      return c.json({ deliveries: await webhooks.listDeliveries({ callId, limit }) }, 200);
    },
  );
}
