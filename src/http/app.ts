import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { GatewayError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { requireCredential } from './auth.js';
import { mountConsole } from './console-static.js';
import { mountDocsPage } from './docs-page.js';
import { errorResponse, handleError, validationError } from './errors.js';
import { registerRoutes } from './routes/index.js';
import type { AppEnv, HttpServices } from './services.js';

export type GatewayApp = OpenAPIHono<AppEnv>;

export function createHttpApp(services: HttpServices): GatewayApp {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return errorResponse(c, validationError(result.error, result.target));
      return undefined;
    },
  });

  app.onError(handleError(services.log));
  app.notFound((c) => errorResponse(c, new GatewayError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}`)));
  app.use(
    '*',
    bodyLimit({
      maxSize: LIMITS.bodyLimitBytes,
      onError: (c) => errorResponse(c, new GatewayError('PAYLOAD_TOO_LARGE', 'The request body is over 1 MiB')),
    }),
  );
  app.use('/v1/*', requireCredential(services));

  registerRoutes(app, services);

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKeyHeader', { type: 'apiKey', in: 'header', name: 'x-api-key' });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Voice Gateway API',
      version: '0.1.0',
      description: 'Place, answer and control calls on your own phone line; stream their audio to your agents.',
    },
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
  });
  mountDocsPage(app);
  mountConsole(app);
  return app;
}
