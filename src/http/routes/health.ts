import { createRoute, z } from '@hono/zod-openapi';
import type { GatewayApp } from '../app.js';
import { jsonContent, PUBLIC } from '../openapi.js';

const Health = z.object({ ok: z.literal(true), service: z.string().openapi({ example: 'voice-gateway' }), version: z.string() }).openapi('Health');

export function registerHealthRoutes(app: GatewayApp): void {
  app.openapi(
    createRoute({ method: 'get', path: '/health', tags: ['Health'], summary: 'Liveness', ...PUBLIC, responses: { 200: jsonContent(Health, 'The gateway is up') } }),
    (c) => c.json({ ok: true as const, service: 'voice-gateway', version: '0.1.0' }, 200),
  );
}
