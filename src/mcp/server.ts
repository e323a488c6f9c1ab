import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AssistantTaskInput } from '../http/schemas/assistant-task.js';
import { AssistantMessagesQuery } from '../http/schemas/assistant.js';
import { CallIdParam, Dtmf, PlaceCall } from '../http/schemas/calls.js';
import { GatewayApi, GatewayApiError, describeError, type GatewayApiOptions } from './gateway-api.js';

/** A call as the tools show it: without its webhook URL and stream settings, which may carry credentials in their query. */
interface ToolCall {
  id: string;
  state: string;
  [field: string]: unknown;
}
interface Phone {
  id: string;
  connected: boolean;
}

const shown = (call: ToolCall): ToolCall => {
  const { webhookUrl: _webhookUrl, stream: _stream, ...rest } = call;
  return rest;
};

const ok = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] });

/** Every tool's errors become a result with isError and words a model can act on, never a thrown protocol error. */
async function run(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return ok(await work());
  } catch (err) {
    const text = err instanceof GatewayApiError ? describeError(err) : `INTERNAL: ${err instanceof Error ? err.message : String(err)}`;
    return { isError: true, content: [{ type: 'text', text }] };
  }
}

const READ = { readOnlyHint: true, openWorldHint: false } as const;
const callId = CallIdParam.shape.callId.describe('the call id (call_…), from place_call or get_call');

/**
 * The Voice Gateway MCP server (issue 27): tools a person would ask an assistant for, on the
 * gateway's public API. Argument schemas are the API's own zod schemas, so a model is refused the
 * same way the API would refuse it, before any request.
 */
export function createMcpServer(options: GatewayApiOptions): McpServer {
  const api = new GatewayApi(options);
  const server = new McpServer({ name: 'voice-gateway', version: '0.1.0' });
  // In this order in the tool list: the phones and calls, then what the assistant took and heard.
  registerCallTools(server, api);
  registerAssistantTools(server, api);
  return server;
}

function registerCallTools(server: McpServer, api: GatewayApi): void {
  server.registerTool(
    'list_phones',
    { title: 'List phones', description: 'The paired phones: id, name, whether each is connected now, and its latest health report.', inputSchema: {}, annotations: READ },
    () => run(async () => ({ phones: (await api.request<{ devices: unknown[] }>('GET', '/v1/devices')).devices })),
  );

  server.registerTool(
    'place_call',
    {
      title: 'Place a call',
      description:
        'Dial a number from one of the phones. Optionally give the built-in voice assistant a task: it makes the call, works towards the task and reports an outcome (see get_call). ' +
        'Returns the call; its progress arrives as events (get_call).',
      inputSchema: {
        to: PlaceCall.shape.to,
        deviceId: PlaceCall.shape.deviceId.optional().describe('the phone to call from (list_phones); may be left out when exactly one phone is connected'),
        task: AssistantTaskInput.optional().describe('what the assistant is to achieve on the call; without it the call is yours to handle'),
      },
      annotations: { destructiveHint: false, openWorldHint: true },
    },
    ({ to, deviceId, task }) =>
      run(async () => {
        const phone = deviceId ?? (await onlyConnectedPhone(api));
        const placed = await api.request<{ call: ToolCall }>('POST', '/v1/calls', { deviceId: phone, to, ...(task ? { assistant: task } : {}) });
        return { call: shown(placed.call) };
      }),
  );

  server.registerTool(
    'get_call',
    {
      title: 'Get a call',
      description: 'A call\'s state, its timeline (oldest first), and, if the assistant was on it, its status, task and outcome.',
      inputSchema: { callId },
      annotations: READ,
    },
    ({ callId: id }) =>
      run(async () => {
        const path = `/v1/calls/${encodeURIComponent(id)}`;
        const [{ call }, { events }, agent] = await Promise.all([
          api.request<{ call: ToolCall }>('GET', path),
          api.request<{ events: unknown[] }>('GET', `${path}/events`),
          api.request<{ requested: boolean; status: string; task?: unknown; outcome?: unknown }>('GET', `${path}/agent`),
        ]);
        const assistant = agent.requested ? { status: agent.status, ...(agent.task ? { task: agent.task } : {}), ...(agent.outcome ? { outcome: agent.outcome } : {}) } : undefined;
        return { call: shown(call), timeline: events, ...(assistant ? { assistant } : {}) };
      }),
  );

  server.registerTool(
    'hang_up',
    { title: 'Hang up', description: 'End a call. The call ends when the phone confirms (get_call shows state ended).', inputSchema: { callId }, annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: true } },
    ({ callId: id }) => run(async () => ({ call: shown((await api.request<{ call: ToolCall }>('POST', `/v1/calls/${encodeURIComponent(id)}/hangup`)).call) })),
  );

  server.registerTool(
    'send_digits',
    {
      title: 'Send digits',
      description: 'Play keypad tones (DTMF) on an active call, e.g. to get through a phone menu.',
      inputSchema: { callId, digits: Dtmf.shape.digits.describe('0-9, * and #') },
      annotations: { destructiveHint: false, openWorldHint: true },
    },
    ({ callId: id, digits }) => run(async () => ({ call: shown((await api.request<{ call: ToolCall }>('POST', `/v1/calls/${encodeURIComponent(id)}/dtmf`, { digits })).call) })),
  );
}

function registerAssistantTools(server: McpServer, api: GatewayApi): void {
  server.registerTool(
    'list_assistant_messages',
    {
      title: 'Assistant messages',
      description: 'Messages the assistant took from callers, newest first: who called, why, a callback number and how urgent.',
      inputSchema: { limit: AssistantMessagesQuery.shape.limit.describe('how many, newest first (default 50)') },
      annotations: READ,
    },
    ({ limit }) => run(async () => api.request('GET', `/v1/agent/messages${limit ? `?limit=${limit}` : ''}`)),
  );

  server.registerTool(
    'get_transcript',
    { title: 'Get a transcript', description: 'What was said while the assistant was on a call, oldest first (empty if it never was).', inputSchema: { callId }, annotations: READ },
    ({ callId: id }) => run(async () => api.request('GET', `/v1/calls/${encodeURIComponent(id)}/transcript`)),
  );
}

async function onlyConnectedPhone(api: GatewayApi): Promise<string> {
  const { devices } = await api.request<{ devices: Phone[] }>('GET', '/v1/devices');
  const connected = devices.filter((d) => d.connected);
  if (connected.length === 1) return connected[0]!.id;
  throw new GatewayApiError(
    'VALIDATION_ERROR',
    connected.length === 0 ? 'No phone is connected, so there is none to call from' : `${connected.length} phones are connected: say which one with deviceId`,
    null,
    [{ path: 'deviceId', message: connected.length === 0 ? 'no phone is connected (list_phones)' : `one of ${connected.map((d) => d.id).join(', ')}` }],
  );
}
