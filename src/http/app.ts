import { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { GatewayError, invalidInput } from '../errors.js';
import { LIMITS } from '../limits.js';
import { requireCredential, requireMetricsCredential } from './auth.js';
import { mountConsole } from './console-static.js';
import { mountDocsPage } from './docs-page.js';
import { OPENAPI_TAGS } from './openapi.js';
import { errorResponse, handleError, validationError } from './errors.js';
import { nameNodeToNodes } from './forward.js';
import { registerRoutes } from './routes/index.js';
import { refuseUndecodableTarget } from './target-escapes.js';
import type { AppEnv, HttpServices } from './services.js';

export type GatewayApp = OpenAPIHono<AppEnv>;

/**
 * A POST or PUT that says `Content-Type: application/json` but sends no body at all carries no
 * fields: it is validated as `{}` (so an optional body may be left out with the usual headers, and a
 * required one is refused field by field) instead of failing as malformed JSON.
 */
const emptyJsonBodyIsEmptyObject: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { method } = c.req;
  if ((method === 'POST' || method === 'PUT' || method === 'PATCH') && /json/i.test(c.req.header('content-type') ?? '')) {
    const length = c.req.header('content-length');
    if (length === '0' || (length === undefined && c.req.header('transfer-encoding') === undefined)) {
      const headers = new Headers(c.req.raw.headers);
      headers.delete('content-length');
      c.req.raw = new Request(c.req.raw.url, { method, headers, body: '{}' });
    }
  }
  await next();
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON travels as UTF-8 (RFC 8259 section 8.1). The platform's parser reads every byte that is not
 * UTF-8 as U+FFFD, so such a body would be stored silently changed; it is refused as the malformed
 * JSON it is. The bytes are read once into Hono's body cache, which the validator and the node
 * forwarder then read from; the read stays under the body limit's stream.
 */
const refuseJsonNotUtf8: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { method } = c.req;
  if ((method === 'POST' || method === 'PUT' || method === 'PATCH') && /json/i.test(c.req.header('content-type') ?? '')) {
    const bytes = await c.req.arrayBuffer();
    try {
      strictUtf8.decode(bytes);
    } catch {
      return errorResponse(c, invalidInput('body', 'not valid JSON: its bytes are not UTF-8', 'invalid_json'));
    }
  }
  await next();
  return undefined;
};

/**
 * A body the route never read (refused before validation, or a route that takes none) is read to its
 * end after the response, so the next request on a keep-alive connection is parsed from where it
 * starts. Bodies over the limit were refused with `Connection: close` and are left alone. The wait is
 * bounded: a client that does not finish sending in time loses the connection.
 */
const drainUnreadBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const request = c.req.raw;
  await next();
  if (!request.body || request.bodyUsed || request.body.locked || c.res.headers.get('connection') === 'close') return;
  const reader = request.body.getReader();
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), LIMITS.unreadBodyDrainMs);
  void (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // The client went away: nothing is left to keep.
    } finally {
      clearTimeout(timer);
    }
  })();
};

export function createHttpApp(services: HttpServices): GatewayApp {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return errorResponse(c, validationError(result.error, result.target));
      return undefined;
    },
  });

  app.onError(handleError(services.log));
  app.notFound((c) => errorResponse(c, new GatewayError('NOT_FOUND', `No route ${c.req.method} ${c.req.path}`)));
  app.use('*', drainUnreadBody);
  app.use(
    '*',
    bodyLimit({
      maxSize: LIMITS.bodyLimitBytes,
      onError: (c) => errorResponse(c, new GatewayError('PAYLOAD_TOO_LARGE', 'The request body is over 1 MiB')),
    }),
  );
  app.use('*', emptyJsonBodyIsEmptyObject);
  app.use('*', refuseUndecodableTarget);
  app.use('/v1/*', requireCredential(services));
  app.use('/v1/*', refuseJsonNotUtf8);
  app.use('/health', nameNodeToNodes(services));
  app.use('/metrics', requireMetricsCredential(services));

  registerRoutes(app, services);

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKeyHeader', { type: 'apiKey', in: 'header', name: 'x-api-key' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'metricsToken', { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, for a scraper: opens GET /metrics only' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'deviceToken', { type: 'http', scheme: 'bearer', description: 'A phone\'s device token from POST /v1/phone/pair' });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Voice Gateway API',
      version: '0.1.0',
      description: 'Place, answer and control calls on your own phone line; stream their audio to your agents.',
      license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    },
    // Relative: the document describes the gateway that serves it, whatever its address.
    servers: [{ url: '/', description: 'This gateway' }],
    tags: OPENAPI_TAGS,
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
  });
  mountDocsPage(app);
  mountConsole(app);
  return app;
}
