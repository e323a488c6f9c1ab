import { createRoute, z } from '@hono/zod-openapi';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonContent, PUBLIC } from '../openapi.js';
import type { HttpServices } from '../services.js';

const Health = z.object({ ok: z.literal(true), service: z.string().openapi({ example: 'voice-gateway' }), version: z.string() }).openapi('Health');
const Ready = z
  .object({ ok: z.literal(true), service: z.string().openapi({ example: 'voice-gateway' }), database: z.literal('ok') })
  .openapi('Ready');

export function registerHealthRoutes(app: GatewayApp, { ready }: Pick<HttpServices, 'ready'>): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      tags: ['Health'],
      summary: 'Liveness: the process answers (the database is not asked; see /health/ready)',
      ...PUBLIC,
      responses: { 200: jsonContent(Health, 'The gateway is up') },
    }),
    (c) => c.json({ ok: true as const, service: 'voice-gateway', version: '0.1.0' }, 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/health/ready',
      operationId: 'getReadiness',
      tags: ['Health'],
      summary: 'Readiness: the database answers within DATABASE_TIMEOUT, so requests can be served',
      ...PUBLIC,
      responses: { 200: jsonContent(Ready, 'Ready to serve'), ...errorResponses(503) },
    }),
    async (c) => {
      await ready();
      return c.json({ ok: true as const, service: 'voice-gateway', database: 'ok' as const }, 200);
    },
  );
}
