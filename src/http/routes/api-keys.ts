import { createRoute, z } from '@hono/zod-openapi';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonBody, jsonContent } from '../openapi.js';
import { ApiKey, ApiKeyCreate } from '../schemas/api-keys.js';
import type { Principal } from '../../auth/index.js';
import { text } from '../../text.js';
import type { HttpServices } from '../services.js';
import { actorOf } from './users.js';

export function registerApiKeyRoutes(app: GatewayApp, { apiKeys, accounts }: HttpServices): void {
  // API keys act with the owner's powers, so a console member may not make or revoke them.
  const ownerOnly = (principal: Principal) => accounts.requireOwner(actorOf(principal), 'create or revoke API keys');

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/api-keys',
      operationId: 'listApiKeys',
      tags: ['API keys'],
      summary: 'List API keys, newest first (never with the key itself)',
      responses: { 200: jsonContent(z.object({ apiKeys: z.array(ApiKey) }).openapi('ApiKeyList'), 'The keys'), ...errorResponses(401) },
    }),
    async (c) => c.json({ apiKeys: await apiKeys.list() }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/api-keys',
      operationId: 'createApiKey',
      tags: ['API keys'],
      summary: 'Create an API key; the full key is returned this once',
      request: { body: jsonBody(ApiKeyCreate) },
      responses: { 201: jsonContent(z.object({ apiKey: ApiKey }).openapi('ApiKeyCreated'), 'The new key, with `key`'), ...errorResponses(400, 401, 403, 413) },
    }),
    async (c) => {
      await ownerOnly(c.get('principal'));
      return c.json({ apiKey: await apiKeys.create(c.req.valid('json').name) }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/api-keys/{id}',
      operationId: 'revokeApiKey',
      tags: ['API keys'],
      summary: 'Revoke an API key; it fails at once',
      request: { params: z.object({ id: text().max(100) }) },
      responses: { 204: { description: 'Revoked' }, ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      await ownerOnly(c.get('principal'));
      await apiKeys.revoke(c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
}
