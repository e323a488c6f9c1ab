import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonBody, jsonContent } from '../openapi.js';
import { SettingsResponse, SettingsUpdate } from '../schemas/settings.js';
import type { AppEnv, HttpServices } from '../services.js';
import { actorOf } from './users.js';

const WebhookSecret = z.object({ secret: z.string().openapi({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }) }).openapi('WebhookSecret');

export function registerSettingsRoutes(app: GatewayApp, { settings, accounts }: HttpServices): void {
  // Every setting redirects trust or data: where phones, reset links and call events go, which agent
  // hears the calls, which model account they use, what signs the webhooks. So only the owner (or an
  // API key, which acts as the owner) changes them; members read them.
  const ownerOnly = (c: Context<AppEnv>) => accounts.requireOwner(actorOf(c.get('principal')), 'change the settings');
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/settings',
      operationId: 'getSettings',
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
      operationId: 'updateSettings',
      tags: ['Settings'],
      summary: 'Change settings (the owner or an API key); only sent fields change, an empty string clears back to the environment default',
      request: { body: jsonBody(SettingsUpdate) },
      responses: { 200: jsonContent(SettingsResponse, 'The settings after the change'), ...errorResponses(400, 401, 403, 413) },
    }),
    async (c) => {
      await ownerOnly(c);
      return c.json({ settings: await settings.update(c.req.valid('json')) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/settings/webhook-secret',
      operationId: 'rotateWebhookSecret',
      tags: ['Settings'],
      summary: 'Make a new webhook signing secret (the owner or an API key); it is returned this once',
      description: 'The secret signs webhooks and the WebSocket upgrades to agents, from the next one on.',
      responses: { 200: jsonContent(WebhookSecret, 'The new secret'), ...errorResponses(401, 403) },
    }),
    async (c) => {
      await ownerOnly(c);
      return c.json({ secret: await settings.rotateWebhookSecret() }, 200);
    },
  );
}
