import { createRoute, z } from '@hono/zod-openapi';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonBody, jsonContent } from '../openapi.js';
import { SettingsResponse, SettingsUpdate } from '../schemas/settings.js';
import type { HttpServices } from '../services.js';

const WebhookSecret = z.object({ secret: z.string().openapi({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }) }).openapi('WebhookSecret');

export function registerSettingsRoutes(app: GatewayApp, { settings }: HttpServices): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/settings',
      tags: ['Settings'],
      summary: 'Read the settings (secrets are never returned in full)',
      responses: { 200: jsonContent(SettingsResponse, 'The settings'), ...errorResponses(401) },
    }),
    (c) => c.json({ settings: settings.view() }, 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/v1/settings',
      tags: ['Settings'],
      summary: 'Change settings; only sent fields change, an empty string clears back to the environment default',
      request: { body: jsonBody(SettingsUpdate) },
      responses: { 200: jsonContent(SettingsResponse, 'The settings after the change'), ...errorResponses(400, 401, 413) },
    }),
    async (c) => c.json({ settings: await settings.update(c.req.valid('json')) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/settings/webhook-secret',
      tags: ['Settings'],
      summary: 'Make a new webhook signing secret; it is returned this once',
      responses: { 200: jsonContent(WebhookSecret, 'The new secret'), ...errorResponses(401) },
    }),
    async (c) => c.json({ secret: await settings.rotateWebhookSecret() }, 200),
  );
}
