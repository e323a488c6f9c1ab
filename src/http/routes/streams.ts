import { createRoute } from '@hono/zod-openapi';
import { servedBy } from '../affinity.js';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonBody, jsonContent } from '../openapi.js';
import { CallIdParam, StreamConfig } from '../schemas/calls.js';
import { StreamAttached, StreamInfo } from '../schemas/streams.js';
import type { HttpServices } from '../services.js';

export function registerStreamRoutes(app: GatewayApp, services: HttpServices): void {
  const { streams } = services;
  app.openapi(
    servedBy('call', createRoute({
      method: 'post',
      path: '/v1/calls/{callId}/stream',
      operationId: 'attachCallStream',
      tags: ['Streams'],
      summary: 'Attach an agent stream; answers a ringing incoming call first and replaces any attached stream',
      request: { params: CallIdParam, body: jsonBody(StreamConfig) },
      responses: {
        202: jsonContent(StreamAttached, 'Attached; the gateway connects to the agent once the call is answered'),
        ...errorResponses(400, 401, 404, 409, 413, 504),
      },
    }), services),
    async (c) => {
      const { info, call } = await streams.attach(c.req.valid('param').callId, c.req.valid('json'));
      return c.json({ ...info, call }, 202);
    },
  );

  app.openapi(
    servedBy('call', createRoute({
      method: 'get',
      path: '/v1/calls/{callId}/stream',
      operationId: 'getCallStream',
      tags: ['Streams'],
      summary: 'The call\'s stream and its status',
      request: { params: CallIdParam },
      responses: { 200: jsonContent(StreamInfo, 'The stream'), ...errorResponses(401, 404) },
    }), services),
    async (c) => c.json(await streams.info(c.req.valid('param').callId), 200),
  );

  app.openapi(
    servedBy('call', createRoute({
      method: 'delete',
      path: '/v1/calls/{callId}/stream',
      operationId: 'detachCallStream',
      tags: ['Streams'],
      summary: 'Close the agent socket without hanging up',
      request: { params: CallIdParam },
      responses: { 204: { description: 'Detached; the call goes on' }, ...errorResponses(401, 404) },
    }), services),
    async (c) => {
      await streams.detach(c.req.valid('param').callId);
      return c.body(null, 204);
    },
  );
}
