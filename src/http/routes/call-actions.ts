import { createRoute, z } from '@hono/zod-openapi';
import { CALL_ACTIONS } from '../../calls/index.js';
import { servedBy } from '../affinity.js';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonBody, jsonContent } from '../openapi.js';
import { ActionResult, CallIdParam, Dtmf } from '../schemas/calls.js';
import type { HttpServices } from '../services.js';

const ACTION_SUMMARIES: Record<(typeof CALL_ACTIONS)[number], string> = {
  answer: 'Answer a ringing incoming call',
  reject: 'Reject a ringing incoming call',
  hangup: 'Hang up a call',
  hold: 'Put an active call on hold',
  unhold: 'Take a call off hold',
};

/** Registered after every other `/v1/calls/{callId}/<word>` POST route, since `{action}` would match them. */
export function registerCallActionRoutes(app: GatewayApp, services: HttpServices): void {
  const { calls } = services;
  app.openapi(
    servedBy('call', createRoute({
      method: 'post',
      path: '/v1/calls/{callId}/dtmf',
      operationId: 'sendDtmf',
      tags: ['Calls'],
      summary: 'Play keypad tones on an active call',
      request: { params: CallIdParam, body: jsonBody(Dtmf) },
      responses: { 202: jsonContent(ActionResult, 'The phone took the command'), ...errorResponses(400, 401, 404, 409, 413, 504) },
    }), services),
    async (c) => {
      const { call, command } = await calls.act(c.req.valid('param').callId, 'dtmf', { digits: c.req.valid('json').digits });
      return c.json({ accepted: true, command, call }, 202);
    },
  );

  // One operation per action, so a generated client has answerCall, hangupCall, … rather than one method taking a word.
  for (const action of CALL_ACTIONS) {
    app.openapi(
      servedBy('call', createRoute({
        method: 'post',
        path: `/v1/calls/{callId}/${action}`,
        operationId: `${action}Call`,
        tags: ['Calls'],
        summary: ACTION_SUMMARIES[action],
        request: { params: CallIdParam },
        responses: { 202: jsonContent(ActionResult, 'The phone took the command; the outcome arrives as an event'), ...errorResponses(400, 401, 404, 409, 504) },
      }), services),
      async (c) => {
        const { call, command } = await calls.act(c.req.valid('param').callId, action);
        return c.json({ accepted: true, command, call }, 202);
      },
    );
  }

  // Any other word answers 400 naming the actions there are, as before; it is not an operation of the document.
  app.openapi(
    servedBy('any', createRoute({
      method: 'post',
      path: '/v1/calls/{callId}/{action}',
      hide: true,
      request: {
        params: CallIdParam.extend({ action: z.enum(CALL_ACTIONS).openapi({ param: { name: 'action', in: 'path' } }) }),
      },
      responses: { 202: jsonContent(ActionResult, 'The phone took the command; the outcome arrives as an event'), ...errorResponses(400, 401, 404, 409, 504) },
    }), services),
    async (c) => {
      const { callId, action } = c.req.valid('param');
      const { call, command } = await calls.act(callId, action);
      return c.json({ accepted: true, command, call }, 202);
    },
  );
}
