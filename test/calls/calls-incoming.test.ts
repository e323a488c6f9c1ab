import { describe, expect, it } from 'vitest';
import { acked, getCall, getEvents, show, testScope, type Call, type Command, type ErrorBody } from '../helpers/phones.js';

const t = testScope();

type ActionResult = { accepted: boolean; command: Command; call: Call };

describe('an incoming call', () => {
  it('is created from call.ringing, named in the event.ack, and rings until a client acts', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930123456');
    expect(callId).toMatch(/\S/);
    const ringing = sim.events[0]!;
    expect(ringing).toMatchObject({ event: 'call.ringing', direction: 'incoming', remoteNumber: '+4930123456' });
    expect(ringing.callId).toBeUndefined();

    const call = await getCall(g, callId);
    expect(call).toMatchObject({ id: callId, deviceId: sim.deviceId, direction: 'incoming', state: 'ringing', remoteNumber: '+4930123456', nativeCallId: ringing.nativeCallId });
    expect(call.answeredAt).toBeUndefined();
    expect(call.endedAt).toBeUndefined();
    expect(sim.currentCall?.callId).toBe(callId);
    // Nobody acted: nothing was sent to the phone (no auto answer without a stream URL or the assistant).
    expect(sim.commands).toEqual([]);
    const events = await getEvents(g, callId);
    expect(events).toEqual([{ event: 'call.ringing', eventId: ringing.eventId, payload: {}, occurredAt: ringing.occurredAt, receivedAt: expect.any(String) }]);
  });

  it('answer: ringing -> active with answeredAt, then hung up by the caller', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930000001');
    const res = await g.api<ActionResult>('POST', `/v1/calls/${callId}/answer`);
    expect(res.status, show(res)).toBe(202);
    expect(res.body).toMatchObject({ accepted: true, command: { type: 'command', action: 'answer', callId, payload: {} }, call: { id: callId } });
    expect(sim.commands.map((c) => [c.action, c.callId, c.commandId])).toEqual([['answer', callId, res.body.command.commandId]]);

    await acked(sim, 'call.active');
    const active = await getCall(g, callId);
    expect(active).toMatchObject({ state: 'active', answeredAt: expect.any(String) });

    sim.remoteHangup();
    await acked(sim, 'call.disconnected');
    const ended = await getCall(g, callId);
    expect(ended).toMatchObject({ state: 'ended', answeredAt: active.answeredAt, endedAt: expect.any(String) });
    expect((await getEvents(g, callId)).map((e) => [e.event, e.payload])).toEqual([
      ['call.ringing', {}],
      ['call.active', {}],
      ['call.disconnected', { cause: 'remote' }],
    ]);
  });

  it('reject: ringing -> rejected with endedAt and no answeredAt', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930000002');
    const res = await g.api<ActionResult>('POST', `/v1/calls/${callId}/reject`);
    expect(res.status, show(res)).toBe(202);
    expect(res.body.command.action).toBe('reject');
    await acked(sim, 'call.rejected');
    const rejected = await getCall(g, callId);
    expect(rejected).toMatchObject({ state: 'rejected', endedAt: expect.any(String) });
    expect(rejected.answeredAt).toBeUndefined();
    expect((await getEvents(g, callId)).map((e) => e.event)).toEqual(['call.ringing', 'call.rejected']);

    // Final: no more actions.
    const again = await g.api<ErrorBody>('POST', `/v1/calls/${callId}/answer`);
    expect(again.status, show(again)).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE');
  });

  it('missed: the caller hangs up while it rings', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930000003');
    sim.remoteHangup();
    await acked(sim, 'call.disconnected');
    const ended = await getCall(g, callId);
    expect(ended).toMatchObject({ state: 'ended', endedAt: expect.any(String) });
    expect(ended.answeredAt).toBeUndefined();
    expect((await getEvents(g, callId)).at(-1)!.payload).toEqual({ cause: 'missed' });
  });

  it('hangup while ringing ends it (the phone reports cause rejected)', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930000004');
    const res = await g.api('POST', `/v1/calls/${callId}/hangup`);
    expect(res.status, show(res)).toBe(202);
    await acked(sim, 'call.disconnected');
    expect((await getCall(g, callId)).state).toBe('ended');
    expect((await getEvents(g, callId)).at(-1)!.payload).toEqual({ cause: 'rejected' });
  });

  it('answer and reject fit only a ringing incoming call', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930000005');
    const answer = await g.api('POST', `/v1/calls/${callId}/answer`);
    expect(answer.status, show(answer)).toBe(202);
    await acked(sim, 'call.active');
    for (const action of ['answer', 'reject']) {
      const res = await g.api<ErrorBody>('POST', `/v1/calls/${callId}/${action}`);
      expect(res.status, `${action}: ${show(res)}`).toBe(409);
      expect(res.body.error.code).toBe('INVALID_STATE');
    }
    expect(sim.commands.map((c) => c.action)).toEqual(['answer']);
  });

  it('each ring of a phone is a call of its own', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const first = await sim.ringIncoming('+4930000006');
    sim.remoteHangup();
    await acked(sim, 'call.disconnected');
    const second = await sim.ringIncoming('+4930000006');
    expect(second).not.toBe(first);
    const list = await g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${sim.deviceId}`);
    expect(list.body.calls.map((c) => [c.id, c.state])).toEqual([
      [second, 'ringing'],
      [first, 'ended'],
    ]);
  });
});
