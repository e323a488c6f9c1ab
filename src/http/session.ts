import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { AccountService } from '../accounts/index.js';
import { credentialFrom, unauthorized, type ApiKeyService, type Principal } from '../auth/index.js';
import { GatewayError } from '../errors.js';

export const SESSION_COOKIE = 'vg_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The value of one cookie of a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value || null;
  }
  return null;
}

/**
 * Whether a request's `Origin` is the gateway's own: the host the browser addressed (the `Host`
 * header; the console is served by the gateway itself), or PUBLIC_URL when a proxy rewrites the
 * host. Never the `publicUrl` saved through the API: a value the API can change must not decide
 * which sites may act with a console session.
 */
export function isOwnOrigin(origin: string | undefined, host: string | undefined, publicUrl: string | undefined): boolean {
  if (!origin || origin === 'null') return false;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (host && parsed.host.toLowerCase() === host.trim().toLowerCase()) return true;
  if (publicUrl) {
    try {
      return new URL(publicUrl).origin === parsed.origin;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * HttpServices.sessionPrincipal: the console user of a `vg_session` cookie. Requests that change
 * state (anything but GET, HEAD and OPTIONS; WebSocket upgrades too) must also come from the
 * gateway's own origin, so another site cannot ride on the cookie.
 */
export function sessionPrincipalResolver(accounts: AccountService, publicUrl: string | undefined) {
  return async (cookieHeader: string | undefined, origin: string | undefined, method: string, host?: string): Promise<Principal | null> => {
    const token = readCookie(cookieHeader, SESSION_COOKIE);
    if (!token) return null;
    if (!SAFE_METHODS.has(method.toUpperCase()) && !isOwnOrigin(origin, host, publicUrl)) {
      throw new GatewayError('UNAUTHORIZED', 'A console session is accepted only from the console itself (the Origin header must be the gateway\'s own)');
    }
    const user = await accounts.sessionUser(token);
    if (!user) throw new GatewayError('UNAUTHORIZED', 'The console session has expired or was ended; sign in again');
    return { kind: 'session', userId: user.id, email: user.email };
  };
}

/** Whether the browser reached the gateway over https (directly or through a proxy that says so). */
export function cameOverHttps(c: Context): boolean {
  const forwarded = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return forwarded === 'https' || new URL(c.req.url).protocol === 'https:';
}

export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return [`${SESSION_COOKIE}=${token}`, 'Path=/', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])].join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}

/** Sign-in and first run are open, but refuse them from another site's page (login CSRF). */
export function refuseForeignOrigin(c: Context, publicUrl: string | undefined): void {
  const origin = c.req.header('origin');
  if (origin !== undefined && !isOwnOrigin(origin, c.req.header('host'), publicUrl)) {
    throw new GatewayError('FORBIDDEN', 'Sign-in is accepted only from the console itself');
  }
}

type UpgradeCredentials = { apiKeys: ApiKeyService; sessionPrincipal?: ReturnType<typeof sessionPrincipalResolver> | undefined };

/**
 * Authenticates a WebSocket upgrade like the REST interface: an API key (`Authorization: Bearer`,
 * `x-api-key`) or the console's session cookie from the gateway's own origin. Throws 401.
 */
export async function upgradePrincipal(services: UpgradeCredentials, req: IncomingMessage): Promise<Principal> {
  const header = (name: string): string | undefined => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const key = credentialFrom({ get: header });
  if (key !== null) {
    const principal = await services.apiKeys.verify(key);
    if (!principal) throw unauthorized('The API key is not valid');
    return principal;
  }
  const principal = await services.sessionPrincipal?.(header('cookie'), header('origin'), 'UPGRADE', header('host'));
  if (principal) return principal;
  throw unauthorized();
}
