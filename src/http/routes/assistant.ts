import { createRoute } from '@hono/zod-openapi';
import { isAssistantVoice, DEFAULT_ASSISTANT_VOICE } from '../../assistant/index.js';
import { servedBy } from '../affinity.js';
import type { GatewayApp } from '../app.js';
import { errorResponses, jsonBody, jsonContent } from '../openapi.js';
import {
  AssistantCallInfo,
  AssistantConnectionTest,
  AssistantMessageList,
  AssistantMessageResponse,
  AssistantMessagesQuery,
  AssistantMessageUpdate,
  AssistantSettingsResponse,
  AssistantSettingsUpdate,
} from '../schemas/assistant.js';
import { TakeCall } from '../schemas/assistant-task.js';
import { CallIdParam } from '../schemas/calls.js';
import type { HttpServices } from '../services.js';

/** The assistant on a call, then its settings, the messages it took and a test of the connection to the model. */
export function registerAssistantRoutes(app: GatewayApp, services: HttpServices): void {
  registerCallAgentRoutes(app, services);
  registerAgentSettingsRoutes(app, services);
  registerAgentMessageRoutes(app, services);
  registerAgentTestRoute(app, services);
}

function registerCallAgentRoutes(app: GatewayApp, services: HttpServices): void {
  const { assistant } = services;
  app.openapi(
    servedBy('call', createRoute({
      method: 'get',
      path: '/v1/calls/{callId}/agent',
      operationId: 'getCallAgent',
      tags: ['Assistant'],
      summary: 'The assistant on this call: status, transcript and the message it took',
      request: { params: CallIdParam },
      responses: { 200: jsonContent(AssistantCallInfo, 'The assistant on the call'), ...errorResponses(400, 401, 404) },
    }), services),
    async (c) => c.json(await assistant.info(c.req.valid('param').callId), 200),
  );

  app.openapi(
    servedBy('call', createRoute({
      method: 'post',
      path: '/v1/calls/{callId}/agent',
      operationId: 'startCallAgent',
      tags: ['Assistant'],
      summary: 'Hand the call to the assistant, optionally with a task; a ringing incoming call is answered first',
      request: {
        params: CallIdParam,
        body: { required: false, content: { 'application/json': { schema: TakeCall } }, description: 'optional: `assistant` gives it a task instead of taking a message' },
      },
      responses: {
        202: jsonContent(AssistantCallInfo, 'The assistant has the call'),
        ...errorResponses(400, 401, 404, 409, 413, 504),
      },
    }), services),
    async (c) => c.json(await assistant.take(c.req.valid('param').callId, c.req.valid('json').assistant), 202),
  );

  app.openapi(
    servedBy('call', createRoute({
      method: 'delete',
      path: '/v1/calls/{callId}/agent',
      operationId: 'stopCallAgent',
      tags: ['Assistant'],
      summary: 'Take the call back from the assistant; the call goes on',
      request: { params: CallIdParam },
      responses: { 200: jsonContent(AssistantCallInfo, 'The assistant after the hand-back'), ...errorResponses(400, 401, 404) },
    }), services),
    async (c) => c.json(await assistant.release(c.req.valid('param').callId), 200),
  );
}

function registerAgentSettingsRoutes(app: GatewayApp, { assistant }: HttpServices): void {
  /** A voice stored before the list changed is shown as the default rather than failing the schema. */
  const view = () => {
    const s = assistant.agentSettings();
    return { ...s, voice: isAssistantVoice(s.voice) ? s.voice : DEFAULT_ASSISTANT_VOICE };
  };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/agent',
      operationId: 'getAgentSettings',
      tags: ['Assistant'],
      summary: 'The assistant settings',
      responses: { 200: jsonContent(AssistantSettingsResponse, 'The assistant settings'), ...errorResponses(401) },
    }),
    (c) => c.json({ settings: view() }, 200),
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/v1/agent',
      operationId: 'updateAgentSettings',
      tags: ['Assistant'],
      summary: 'Change assistant settings; only sent fields change',
      request: { body: jsonBody(AssistantSettingsUpdate) },
      responses: { 200: jsonContent(AssistantSettingsResponse, 'The settings after the change'), ...errorResponses(400, 401, 413) },
    }),
    async (c) => {
      const patch = Object.fromEntries(Object.entries(c.req.valid('json')).filter(([, v]) => v !== undefined));
      await assistant.updateAgentSettings(patch);
      return c.json({ settings: view() }, 200);
    },
  );
}

function registerAgentMessageRoutes(app: GatewayApp, services: HttpServices): void {
  const { assistant } = services;
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/agent/messages',
      operationId: 'listAgentMessages',
      tags: ['Assistant'],
      summary: 'Messages the assistant took, newest first',
      request: { query: AssistantMessagesQuery },
      responses: { 200: jsonContent(AssistantMessageList, 'The messages'), ...errorResponses(400, 401) },
    }),
    async (c) => c.json({ messages: await assistant.messages(c.req.valid('query').limit) }, 200),
  );

  app.openapi(
    servedBy('any', createRoute({
      method: 'patch',
      path: '/v1/agent/messages/{callId}',
      operationId: 'markAgentMessage',
      tags: ['Assistant'],
      summary: 'Mark the message of a call read or unread (the inbox is shared by everyone on the console)',
      request: { params: CallIdParam, body: jsonBody(AssistantMessageUpdate) },
      responses: { 200: jsonContent(AssistantMessageResponse, 'The message after the change'), ...errorResponses(400, 401, 404, 413) },
    }), services),
    async (c) => c.json({ message: await assistant.markRead(c.req.valid('param').callId, c.req.valid('json').read) }, 200),
  );
}

function registerAgentTestRoute(app: GatewayApp, { assistant }: HttpServices): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/agent/test',
      operationId: 'testAgentConnection',
      tags: ['Assistant'],
      summary: 'Test the connection to the voice model: open a session with the stored settings, close it, and say what happened',
      description:
        'Uses the stored model API key, model and realtime URL; sends no audio. 200 whether or not the model could be reached: `ok` and `message` ' +
        '(plain words, the same the call page uses when a hand-off fails) say what happened. The key is never echoed.',
      responses: { 200: jsonContent(AssistantConnectionTest, 'What happened'), ...errorResponses(401) },
    }),
    async (c) => c.json(await assistant.testConnection(), 200),
  );
}
