import type { MiddlewareHandler } from 'hono';
import { credentialFrom, secretsEqual, unauthorized } from '../auth/index.js';
import type { AppEnv, HttpServices } from './services.js';

/** `/v1` paths that carry their own credential or none (pairing codes, console sign-in). */
export const OPEN_V1_PATHS = new Set(['/v1/phone/pair', '/v1/auth/setup', '/v1/auth/login', '/v1/auth/status', '/v1/auth/password-reset']);

export function requireCredential(services: HttpServices): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (OPEN_V1_PATHS.has(c.req.path)) return next();
    const key = credentialFrom(c.req.raw.headers);
    if (key !== null) {
      const principal = await services.apiKeys.verify(key);
      if (!principal) throw unauthorized('The API key is not valid');
      c.set('principal', principal);
      return next();
    }
    if (services.sessionPrincipal) {
      const principal = await services.sessionPrincipal(c.req.header('cookie'), c.req.header('origin'), c.req.method, c.req.header('host'));
      if (principal) {
        c.set('principal', principal);
        return next();
      }
    }
    throw unauthorized();
  };
}

/** `/metrics`: the METRICS_TOKEN (a scraper's Bearer token, which opens nothing else) or any credential of `/v1`. */
export function requireMetricsCredential(services: HttpServices): MiddlewareHandler<AppEnv> {
  const v1 = requireCredential(services);
  return async (c, next) => {
    const token = services.config.metricsToken;
    const presented = credentialFrom(c.req.raw.headers);
    if (token !== undefined && presented !== null && secretsEqual(presented, token)) return next();
    return v1(c, next);
  };
}
