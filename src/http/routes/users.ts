import { createRoute } from '@hono/zod-openapi';
import type { AccountActor } from '../../accounts/index.js';
import type { Principal } from '../../auth/index.js';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonBody, jsonContent } from '../openapi.js';
import { NewAccount, UserIdParam, UserList, UserResponse } from '../schemas/accounts.js';
import type { HttpServices } from '../services.js';

export const actorOf = (principal: Principal): AccountActor => (principal.kind === 'session' ? { kind: 'user', userId: principal.userId } : { kind: 'api-key' });

export function registerUserRoutes(app: GatewayApp, { accounts }: HttpServices): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/users',
      operationId: 'listUsers',
      tags: ['Console users'],
      summary: 'The console\'s accounts, oldest first (the owner first)',
      responses: { 200: jsonContent(UserList, 'The accounts'), ...errorResponses(401) },
    }),
    async (c) => c.json({ users: await accounts.list() }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/users',
      operationId: 'createUser',
      tags: ['Console users'],
      summary: 'Add a console user (the owner, or an API key)',
      request: { body: jsonBody(NewAccount) },
      responses: { 201: jsonContent(UserResponse, 'The new account'), ...errorResponses(400, 401, 403, 409, 413) },
    }),
    async (c) => {
      const { email, password } = c.req.valid('json');
      return c.json({ user: await accounts.add(actorOf(c.get('principal')), email, password) }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/users/{id}',
      operationId: 'removeUser',
      tags: ['Console users'],
      summary: 'Remove a console user and end their sessions; the owner and oneself cannot be removed (409)',
      request: { params: UserIdParam },
      responses: { 204: { description: 'Removed' }, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      await accounts.remove(actorOf(c.get('principal')), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
}
