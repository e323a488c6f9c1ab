import { createRoute, z } from '@hono/zod-openapi';
import { CALL_ACTIONS } from '../../calls/index.js';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonBody, jsonContent } from '../openapi.js';
import { ActionResult, CallIdParam, Dtmf } from '../schemas/calls.js';
import type { HttpServices } from '../services.js';

/** Registered after every other `/v1/calls/{callId}/<word>` POST route, since `{action}` would match them. */
export function registerCallActionRoutes(app: GatewayApp, { calls }: HttpServices): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/calls/{callId}/dtmf',
      tags: ['Calls'],
      summary: 'Play keypad tones on an active call',
      request: { params: CallIdParam, body: jsonBody(Dtmf) },
      responses: { 202: jsonContent(ActionResult, 'The phone took the command'), ...errorResponses(400, 401, 404, 409, 413, 504) },
    }),
    async (c) => {
      const { call, command } = await calls.act(c.req.valid('param').callId, 'dtmf', { digits: c.req.valid('json').digits });
      return c.json({ accepted: true, command, call }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/calls/{callId}/{action}',
      tags: ['Calls'],
      summary: 'answer, reject, hangup, hold or unhold; answer and reject apply to ringing incoming calls',
      request: {
        params: CallIdParam.extend({ action: z.enum(CALL_ACTIONS).openapi({ param: { name: 'action', in: 'path' } }) }),
      },
      responses: { 202: jsonContent(ActionResult, 'The phone took the command; the outcome arrives as an event'), ...errorResponses(400, 401, 404, 409, 504) },
    }),
    async (c) => {
      const { callId, action } = c.req.valid('param');
      const { call, command } = await calls.act(callId, action);
      return c.json({ accepted: true, command, call }, 202);
    },
  );
}
