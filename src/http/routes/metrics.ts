import { createRoute, z } from '@hono/zod-openapi';
import type { GatewayApp } from '../app.js';
import { errorResponses } from '../openapi.js';
import type { HttpServices } from '../services.js';

const Exposition = z.string().openapi({
  description: 'The Prometheus text format (version 0.0.4); every metric is described in docs/api.md',
  example: '# HELP voice_gateway_phones_connected Phones whose socket to the gateway is open.\n# TYPE voice_gateway_phones_connected gauge\nvoice_gateway_phones_connected 1\n',
});

export function registerMetricsRoutes(app: GatewayApp, services: HttpServices): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      tags: ['Health'],
      summary: 'Metrics for Prometheus',
      description: 'Calls by state, streams and assistant sessions, call audio, webhooks, phones, and the process (event-loop delay, CPU, memory). Takes the METRICS_TOKEN or an API key.',
      security: [{ metricsToken: [] }, { bearerAuth: [] }, { apiKeyHeader: [] }],
      responses: {
        200: { description: 'The metrics', content: { 'text/plain': { schema: Exposition } } },
        ...errorResponses(401),
      },
    }),
    async (c) => {
      const { contentType, text } = await services.metrics.exposition();
      return c.text(text, 200, { 'content-type': contentType });
    },
  );
}
