import { describe, expect, it } from 'vitest';
import { until, show, testScope, type ErrorBody } from '../helpers/phones.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { openLive } from '../console/support.js';
import { rig, takenCall, type AssistantCallInfo } from './support.js';

const scope = testScope();

type Message = NonNullable<AssistantCallInfo['message']> & { readAt: string | null };

describe('the assistant\'s inbox: read marks', () => {
  it('takes a message unread, marks it read and unread again for everyone, live', async () => {
    const r = await rig(scope);
    const callId = await takenCall(r, '+4915100000042');
    r.fake.sendFunctionCall({ callId: 'fc_1', name: 'record_message', arguments: { callerName: 'Max', reason: 'The roof leaks', urgency: 'high' } });
    const messages = async () => (await r.gateway.api<{ messages: Message[] }>('GET', '/v1/agent/messages')).body.messages;
    const [taken] = await until(messages, (m) => m.length === 1, { what: 'the message' });
    expect(taken).toMatchObject({ callId, urgency: 'high', readAt: null });

    const live = await openLive(r.gateway, { authorization: `Bearer ${TEST_API_KEY}` });
    scope.defer(() => live.close());
    const read = await r.gateway.api<{ message: Message }>('PATCH', `/v1/agent/messages/${callId}`, { read: true });
    expect(read.status, show(read)).toBe(200);
    expect(read.body.message).toMatchObject({ callId, callerName: 'Max', readAt: expect.stringMatching(/^\d{4}-/) });
    expect((await live.next((m) => m.type === 'message' && m.message.readAt !== null)).message).toEqual(read.body.message);
    expect(await messages()).toEqual([read.body.message]);

    const unread = await r.gateway.api<{ message: Message }>('PATCH', `/v1/agent/messages/${callId}`, { read: false });
    expect(unread.body.message.readAt).toBeNull();
    expect((await messages())[0]!.readAt).toBeNull();
  });

  it('answers 404 for a call without a message and 400 for a body that is not {read: boolean}', async () => {
    const r = await rig(scope, { key: null });
    const missing = await r.gateway.api<ErrorBody>('PATCH', '/v1/agent/messages/call_00000000000000000000', { read: true });
    expect(missing.status, show(missing)).toBe(404);
    for (const body of [{}, { read: 'yes' }, { read: true, urgency: 'low' }]) {
      const res = await r.gateway.api<ErrorBody>('PATCH', '/v1/agent/messages/call_x', body);
      expect(res.status, `${JSON.stringify(body)}: ${show(res)}`).toBe(400);
    }
    const anon = await r.gateway.api('PATCH', '/v1/agent/messages/call_x', { read: true }, { key: null });
    expect(anon.status).toBe(401);
  });

  it('says where to set the key when the assistant has none, naming Settings rather than an API field', async () => {
    const r = await rig(scope, { key: null });
    const callId = await r.phone.ringIncoming('+4915100000043');
    const res = await r.gateway.api<ErrorBody>('POST', `/v1/calls/${callId}/agent`);
    expect(res.status, show(res)).toBe(409);
    expect(res.body.error.message).toMatch(/Settings/);
    expect(res.body.error.message).not.toMatch(/assistantApiKey|PUT \/v1/);
  });
});
