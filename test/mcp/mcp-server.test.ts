import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { rig, testScope, type Rig } from '../assistant/support.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { callInState, until, type Scope } from '../helpers/phones.js';

const scope = testScope();
const BIN = path.resolve(import.meta.dirname, '../../bin/voice-gateway.js');

interface ToolText {
  isError?: boolean;
  text: string;
}

/** The SDK's own client, talking to `voice-gateway mcp` over stdio as Claude Desktop or Cursor would. */
async function mcpClient(s: Scope, url: string, apiKey = TEST_API_KEY): Promise<{ client: Client; call: (name: string, args?: Record<string, unknown>) => Promise<ToolText> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: { PATH: process.env.PATH ?? '', VOICE_GATEWAY_URL: url, VOICE_GATEWAY_API_KEY: apiKey },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'vitest', version: '1.0.0' });
  await client.connect(transport);
  s.defer(() => client.close());
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolText> => {
    const res = await client.callTool({ name, arguments: args });
    const content = res.content as Array<{ type: string; text: string }>;
    return { ...(res.isError ? { isError: true } : {}), text: content.map((c) => c.text).join('\n') };
  };
  return { client, call };
}

const json = <T>(r: ToolText): T => {
  if (r.isError) throw new Error(`tool error: ${r.text}`);
  return JSON.parse(r.text) as T;
};

// Each server is a Node process that compiles the sources through tsx: seconds each on a loaded machine.
describe('voice-gateway mcp (stdio)', { timeout: 60_000 }, () => {
  it('offers the tools with JSON schemas from the API\'s own schemas', async () => {
    const r = await rig(scope);
    const { client } = await mcpClient(scope, r.gateway.url);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_call', 'get_transcript', 'hang_up', 'list_assistant_messages', 'list_phones', 'place_call', 'send_digits']);
    const place = tools.find((t) => t.name === 'place_call')!;
    const props = place.inputSchema.properties as Record<string, { maxLength?: number; properties?: Record<string, { maxLength?: number; enum?: string[] }> }>;
    expect(place.inputSchema.required).toEqual(['to']);
    expect(props.task?.properties?.instructions?.maxLength).toBe(4000);
    expect(props.task?.properties?.voice?.enum).toContain('marin');
    expect(tools.find((t) => t.name === 'hang_up')!.annotations?.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === 'list_phones')!.annotations?.readOnlyHint).toBe(true);
  });

  it('places a call with a task, follows it, sends digits, reads the outcome and transcript, and hangs up', async () => {
    const r: Rig = await rig(scope);
    const { call } = await mcpClient(scope, r.gateway.url);

    const phones = json<{ phones: Array<{ id: string; connected: boolean }> }>(await call('list_phones'));
    expect(phones.phones).toEqual([expect.objectContaining({ id: r.phone.deviceId, connected: true })]);

    // No deviceId: the one connected phone is used.
    const placed = json<{ call: { id: string; state: string } }>(
      await call('place_call', { to: '+4934112345678', task: { instructions: 'Ask when the parcel arrives.' } }),
    );
    const callId = placed.call.id;
    expect(placed.call).not.toHaveProperty('webhookUrl');
    const update = await r.fake.waitForEvent('session.update', undefined, 5000);
    expect((update.session as { instructions: string }).instructions).toContain('Ask when the parcel arrives.');
    await callInState(r.gateway, callId, 'active');

    const digits = await call('send_digits', { callId, digits: '12#' });
    expect(digits.isError).toBeUndefined();

    r.fake.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_c1', content_index: 0, transcript: 'It arrives on Friday.' });
    r.fake.sendFunctionCall({ callId: 'fc_1', name: 'report_outcome', arguments: { achieved: true, summary: 'The parcel arrives on Friday.', facts: ['Friday'] } });
    const got = await until(
      async () => json<{ call: { state: string }; timeline: Array<{ event: string }>; assistant?: { status: string; outcome?: { achieved: boolean; facts: string[] } } }>(await call('get_call', { callId })),
      (g) => g.assistant?.outcome !== undefined,
      { what: 'the outcome through get_call' },
    );
    expect(got.call.state).toBe('active');
    expect(got.timeline.map((e) => e.event)).toContain('call.active');
    expect(got.assistant).toMatchObject({ status: 'live', outcome: { achieved: true, facts: ['Friday'] } });

    const transcript = await until(
      async () => json<{ transcript: Array<{ role: string; text: string }> }>(await call('get_transcript', { callId })),
      (t) => t.transcript.length === 1,
      { what: 'a transcript line' },
    );
    expect(transcript.transcript[0]).toMatchObject({ role: 'caller', text: 'It arrives on Friday.' });

    expect((await call('hang_up', { callId })).isError).toBeUndefined();
    await callInState(r.gateway, callId, 'ended');
    expect(json<{ messages: unknown[] }>(await call('list_assistant_messages', { limit: 5 })).messages).toEqual([]);
  });

  it('turns the gateway\'s errors into tool errors a model can act on, and never shows the key', async () => {
    const r = await rig(scope);
    const { call } = await mcpClient(scope, r.gateway.url);
    const outputs: ToolText[] = [];
    const tool = async (name: string, args: Record<string, unknown> = {}) => {
      const res = await call(name, args);
      outputs.push(res);
      return res;
    };

    const missing = await tool('get_call', { callId: 'call_nope' });
    expect(missing).toMatchObject({ isError: true, text: expect.stringMatching(/^NOT_FOUND: /) });
    expect(missing.text).toContain('get_call');

    const badNumber = await tool('place_call', { to: 'not a number' });
    expect(badNumber.isError).toBe(true);
    expect(badNumber.text).toMatch(/to/);

    const otherPhone = await tool('place_call', { to: '+4934112345678', deviceId: 'phone-unknown' });
    expect(otherPhone).toMatchObject({ isError: true, text: expect.stringMatching(/^NOT_FOUND: Phone not found/) });

    await r.phone.stop();
    const offline = await until(() => tool('place_call', { to: '+4934112345678' }), (res) => res.isError === true && res.text.startsWith('VALIDATION_ERROR'), { what: 'no connected phone' });
    expect(offline.text).toContain('No phone is connected');

    const wrongKey = await mcpClient(scope, r.gateway.url, 'wrong-key-0123456789abcdef');
    const refused = await wrongKey.call('list_phones');
    outputs.push(refused);
    expect(refused).toMatchObject({ isError: true, text: expect.stringMatching(/^UNAUTHORIZED: /) });
    expect(refused.text).toContain('VOICE_GATEWAY_API_KEY');

    const nowhere = await mcpClient(scope, 'http://127.0.0.1:9');
    const unreachable = await nowhere.call('list_phones');
    outputs.push(unreachable);
    expect(unreachable).toMatchObject({ isError: true, text: expect.stringMatching(/^GATEWAY_UNREACHABLE: /) });

    for (const out of outputs) {
      expect(out.text).not.toContain(TEST_API_KEY);
      expect(out.text).not.toContain('wrong-key-0123456789abcdef');
    }
  });
});
