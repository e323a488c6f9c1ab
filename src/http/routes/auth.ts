import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Session } from '../../accounts/index.js';
import { credentialFrom } from '../../auth/index.js';
import type { GatewayApp } from '../app.js';
import { requestClient } from '../client-address.js';
import { errorResponses, jsonBody, jsonContent, PUBLIC } from '../openapi.js';
import { AuthStatus, Credentials, Me, OwnerSetup, PasswordReset, UserResponse } from '../schemas/accounts.js';
import type { AppEnv, HttpServices } from '../services.js';
import { cameOverHttps, clearedSessionCookie, readCookie, refuseForeignOrigin, SESSION_COOKIE, sessionCookie } from '../session.js';

const TAGS = ['Console sign-in'];

/** Sets the session's cookie (it expires with the session) on an answer no cache may keep. */
function setCookie(c: Context<AppEnv>, session: Session): void {
  const maxAge = Math.max(0, Math.floor((Date.parse(session.expiresAt) - Date.now()) / 1000));
  c.header('Set-Cookie', sessionCookie(session.token, maxAge, cameOverHttps(c)));
  c.header('Cache-Control', 'no-store');
}

/** The open routes: the first run, then signing in (with a password, or a reset link); then those of a signed-in user. */
export function registerAuthRoutes(app: GatewayApp, services: HttpServices): void {
  registerFirstRunRoutes(app, services);
  registerSignInRoutes(app, services);
  registerSessionRoutes(app, services);
}

function registerFirstRunRoutes(app: GatewayApp, { accounts, config }: HttpServices): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/auth/status',
      operationId: 'getAuthStatus',
      tags: TAGS,
      summary: 'Whether the gateway still needs its first account (open, for the console\'s first-run page)',
      ...PUBLIC,
      responses: { 200: jsonContent(AuthStatus, 'The status') },
    }),
    async (c) => c.json({ setupRequired: await accounts.setupRequired() }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/auth/setup',
      operationId: 'setUpOwner',
      tags: TAGS,
      summary: 'First run: create the owner account while no account exists, and sign in',
      description:
        'Needs proof of control of the server: `setupToken` (printed in the gateway\'s log at start and kept in `DATA_DIR/setup-token` ' +
        'until the first account exists), or an API key such as `HTTP_GATEWAY_API_KEY`, in `setupToken` or as `Authorization: Bearer`. ' +
        'Without it the answer is 401. Sets the `vg_session` cookie. Answers 409 CONFLICT once an account exists.',
      ...PUBLIC,
      request: { body: jsonBody(OwnerSetup) },
      responses: { 201: jsonContent(UserResponse, 'The owner, signed in'), ...errorResponses(400, 401, 403, 409, 413) },
    }),
    async (c) => {
      refuseForeignOrigin(c, config.publicUrl);
      const { email, password, setupToken } = c.req.valid('json');
      const user = await accounts.setup(email, password, setupToken ?? credentialFrom(c.req.raw.headers));
      setCookie(c, await accounts.createSession(user.id));
      return c.json({ user }, 201);
    },
  );
}

function registerSignInRoutes(app: GatewayApp, { accounts, config }: HttpServices): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/auth/login',
      operationId: 'logIn',
      tags: TAGS,
      summary: 'Sign in to the console with email and password',
      description:
        'Sets the `vg_session` cookie (HttpOnly, SameSite=Strict, 7 days). After 5 failed attempts for one email from one address ' +
        '(or 30 from one address) within 15 minutes the answer is 429 with Retry-After.',
      ...PUBLIC,
      request: { body: jsonBody(Credentials) },
      responses: { 200: jsonContent(UserResponse, 'Signed in'), ...errorResponses(400, 401, 403, 413, 429) },
    }),
    async (c) => {
      refuseForeignOrigin(c, config.publicUrl);
      const { email, password } = c.req.valid('json');
      const client = requestClient(c, config.trustProxy);
      const { user, session } = await accounts.login(email, password, client);
      setCookie(c, session);
      return c.json({ user }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/auth/password-reset',
      operationId: 'resetPassword',
      tags: TAGS,
      summary: 'Set a new password with a one-time link from `voice-gateway reset-password <email>`, and sign in',
      description:
        'The link (`/reset-password?token=…`) is made on the server by whoever runs the gateway and works once, for an hour. ' +
        'The new password ends every session of the account. A token that is unknown, used or expired answers 401 with the issue at `body.token`.',
      ...PUBLIC,
      request: { body: jsonBody(PasswordReset) },
      responses: { 200: jsonContent(UserResponse, 'The new password applies; signed in'), ...errorResponses(400, 401, 403, 413) },
    }),
    async (c) => {
      refuseForeignOrigin(c, config.publicUrl);
      const { token, password } = c.req.valid('json');
      const user = await accounts.redeemPasswordReset(token, password);
      setCookie(c, await accounts.createSession(user.id));
      return c.json({ user }, 200);
    },
  );
}

function registerSessionRoutes(app: GatewayApp, { accounts }: HttpServices): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/auth/logout',
      operationId: 'logOut',
      tags: TAGS,
      summary: 'Sign out: the session ends at once and its cookie is cleared',
      responses: { 204: { description: 'Signed out' }, ...errorResponses(401) },
    }),
    async (c) => {
      const token = readCookie(c.req.header('cookie'), SESSION_COOKIE);
      if (token && c.get('principal').kind === 'session') await accounts.logout(token);
      c.header('Set-Cookie', clearedSessionCookie(cameOverHttps(c)));
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/auth/me',
      operationId: 'getCurrentUser',
      tags: TAGS,
      summary: 'Who is making the request',
      responses: { 200: jsonContent(Me, 'The console user, or the kind of API key'), ...errorResponses(401) },
    }),
    async (c) => {
      const principal = c.get('principal');
      c.header('Cache-Control', 'no-store');
      if (principal.kind === 'session') return c.json({ user: await accounts.get(principal.userId), credential: 'session' as const }, 200);
      return c.json({ user: null, credential: principal.kind }, 200);
    },
  );
}
