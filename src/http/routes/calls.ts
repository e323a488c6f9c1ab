import { createRoute, z } from '@hono/zod-openapi';
import { mediaPath, type Call } from '../../calls/index.js';
import { PCM_FORMAT } from '../../audio/constants.js';
import { invalidInput } from '../../errors.js';
import { servedBy } from '../affinity.js';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonBody, jsonContent } from '../openapi.js';
import { CallEvent, CallIdParam, CallList, CallListQuery, CallWithMedia, PlaceCall, PlacedCall, TranscriptLine } from '../schemas/calls.js';
import type { HttpServices } from '../services.js';

export function registerCallRoutes(app: GatewayApp, services: HttpServices): void {
  const { calls } = services;
  const media = (call: Call) => ({ path: mediaPath(call.id), format: PCM_FORMAT, streaming: services.isStreaming(call.id) });

  app.openapi(
    servedBy('body-device', createRoute({
      method: 'post',
      path: '/v1/calls',
      operationId: 'createCall',
      tags: ['Calls'],
      summary: 'Place a call; 202 once the phone has received the dial command',
      request: { body: jsonBody(PlaceCall) },
      responses: { 202: jsonContent(PlacedCall, 'The phone took the dial command; the outcome arrives as events'), ...errorResponses(400, 401, 404, 409, 413, 504) },
    }), services),
    async (c) => {
      const { assistant: task, ...input } = c.req.valid('json');
      // Checked before dialling: a task the assistant cannot carry out must not ring anyone.
      if (task && input.stream) throw invalidInput('body.assistant', 'a call has either an assistant with a task or a stream, not both', 'custom');
      if (task) services.assistant.assertCanTakeTask();
      const { call, command } = await calls.place(input);
      if (task) await services.assistant.take(call.id, task);
      return c.json({ call, command, media: media(call) }, 202);
    },
  );

  app.openapi(
    servedBy('any', createRoute({
      method: 'get',
      path: '/v1/calls',
      operationId: 'listCalls',
      tags: ['Calls'],
      summary: 'The call log, newest first',
      request: { query: CallListQuery },
      responses: { 200: jsonContent(CallList, 'A page of calls; pass nextBefore as before for the next page'), ...errorResponses(400, 401) },
    }), services),
    async (c) => c.json(await calls.list(c.req.valid('query')), 200),
  );

  app.openapi(
    servedBy('call', createRoute({
      method: 'get',
      path: '/v1/calls/{callId}',
      operationId: 'getCall',
      tags: ['Calls'],
      summary: 'One call',
      request: { params: CallIdParam },
      responses: { 200: jsonContent(CallWithMedia, 'The call'), ...errorResponses(401, 404) },
    }), services),
    async (c) => {
      const call = await calls.get(c.req.valid('param').callId);
      return c.json({ call, media: media(call) }, 200);
    },
  );

  app.openapi(
    servedBy('any', createRoute({
      method: 'get',
      path: '/v1/calls/{callId}/events',
      operationId: 'listCallEvents',
      tags: ['Calls'],
      summary: 'The call\'s timeline, oldest first',
      request: { params: CallIdParam },
      responses: { 200: jsonContent(z.object({ events: z.array(CallEvent) }).openapi('CallEventList'), 'The timeline'), ...errorResponses(401, 404) },
    }), services),
    async (c) => c.json({ events: await calls.events(c.req.valid('param').callId) }, 200),
  );

  app.openapi(
    servedBy('any', createRoute({
      method: 'get',
      path: '/v1/calls/{callId}/transcript',
      operationId: 'getCallTranscript',
      tags: ['Calls'],
      summary: 'What was said while the assistant was on the call (empty otherwise)',
      request: { params: CallIdParam },
      responses: { 200: jsonContent(z.object({ transcript: z.array(TranscriptLine) }).openapi('Transcript'), 'The transcript'), ...errorResponses(401, 404) },
    }), services),
    async (c) => c.json({ transcript: await calls.transcript(c.req.valid('param').callId) }, 200),
  );
}
