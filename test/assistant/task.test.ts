import { describe, expect, it } from 'vitest';
import { callInState, until, show } from '../helpers/phones.js';
import { agentInfo, rig, testScope } from './support.js';

const scope = testScope();

interface TaskInfo {
  task?: { instructions: string; voice?: string; hangUpWhenDone: boolean };
  outcome?: { reported: boolean; achieved: boolean; summary: string; facts: string[]; reportedAt: string | null };
}

const TASK = 'Book a table for two tonight at 19:30 in the name of Dana Weber.';

describe('the assistant calls out with a task', () => {
  it('runs the call with the task, stores the outcome it reports, hangs up, and delivers the outcome with the end of the call', async () => {
    const r = await rig(scope);
    const hooks = await scope.receiver('/hooks');
    const placed = await r.gateway.api<{ call: { id: string } }>('POST', '/v1/calls', {
      deviceId: r.phone.deviceId,
      to: '+4934112345678',
      webhookUrl: hooks.url,
      assistant: { instructions: TASK, voice: 'cedar' },
    });
    expect(placed.status, show(placed)).toBe(202);
    const callId = placed.body.call.id;

    // The session carries the task in place of the message-taking script, with report_outcome and end_call.
    const update = await r.fake.waitForEvent('session.update', undefined, 5000);
    const session = update.session as { instructions: string; tools: Array<{ name: string }>; audio: { output: { voice: string } } };
    expect(session.instructions).toContain(TASK);
    expect(session.instructions).not.toContain('take a message');
    expect(session.tools.map((t) => t.name).sort()).toEqual(['end_call', 'report_outcome']);
    expect(session.audio.output.voice).toBe('cedar');
    await r.fake.waitForEvent('response.create', undefined, 5000);
    const live = await agentInfo(r.gateway, callId);
    expect(live).toMatchObject({ requested: true, status: 'live', task: { instructions: TASK, voice: 'cedar', hangUpWhenDone: true } });
    expect(live).not.toHaveProperty('outcome');

    r.fake.sendFunctionCall({
      callId: 'fc_outcome',
      name: 'report_outcome',
      arguments: { achieved: true, summary: 'Table booked for two at 19:30.', facts: ['booked under Weber', ' window table ', 42] },
    });
    const output = await r.fake.waitForEvent('conversation.item.create', (e) => (e.item as { call_id?: string }).call_id === 'fc_outcome');
    expect(JSON.parse((output.item as { output: string }).output)).toMatchObject({ ok: true });
    const reported = await until(() => agentInfo(r.gateway, callId) as Promise<TaskInfo>, (i) => i.outcome !== undefined, { what: 'the outcome' });
    expect(reported.outcome).toEqual({
      reported: true,
      achieved: true,
      summary: 'Table booked for two at 19:30.',
      facts: ['booked under Weber', 'window table'],
      reportedAt: expect.any(String),
    });

    r.fake.sendFunctionCall({ callId: 'fc_end', name: 'end_call', arguments: {} });
    await callInState(r.gateway, callId, 'ended');
    const ended = await hooks.waitUntil((h) => h.body.event === 'call.disconnected');
    expect(ended.body).toMatchObject({ call: { id: callId }, task: { instructions: TASK }, outcome: reported.outcome });
    const dialing = hooks.requests.find((h) => h.body.event === 'call.dialing');
    expect(dialing?.body).not.toHaveProperty('outcome');
  });

  it('a model that never reports leaves a clear "no outcome", also in the webhook', async () => {
    const r = await rig(scope);
    const hooks = await scope.receiver('/hooks');
    const placed = await r.gateway.api<{ call: { id: string } }>('POST', '/v1/calls', {
      deviceId: r.phone.deviceId,
      to: '+4934112345678',
      webhookUrl: hooks.url,
      assistant: { instructions: 'Ask whether the shop is open on Sunday.', hangUpWhenDone: false },
    });
    expect(placed.status, show(placed)).toBe(202);
    const callId = placed.body.call.id;
    const update = await r.fake.waitForEvent('session.update', undefined, 5000);
    // Told to stay on the line: no end_call to offer.
    expect((update.session as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['report_outcome']);
    await r.fake.waitForEvent('response.create', undefined, 5000);
    r.phone.remoteHangup();
    await callInState(r.gateway, callId, 'ended');
    const info = (await agentInfo(r.gateway, callId)) as TaskInfo;
    expect(info.outcome).toEqual({ reported: false, achieved: false, summary: expect.stringMatching(/^No outcome/), facts: [], reportedAt: null });
    const ended = await hooks.waitUntil((h) => h.body.event === 'call.disconnected');
    expect(ended.body).toMatchObject({ outcome: { reported: false, achieved: false } });
  });

  it('POST /v1/calls/{id}/agent gives a task to a call in progress', async () => {
    const r = await rig(scope);
    r.phone.dial = { ...r.phone.dial, outcome: 'manual' };
    const placed = await r.gateway.api<{ call: { id: string } }>('POST', '/v1/calls', { deviceId: r.phone.deviceId, to: '+4934112345678' });
    const callId = placed.body.call.id;
    await callInState(r.gateway, callId, 'dialing');
    const res = await r.gateway.api<TaskInfo & { status: string }>('POST', `/v1/calls/${callId}/agent`, { assistant: { instructions: 'Confirm the delivery for Friday.' } });
    expect(res.status, show(res)).toBe(202);
    expect(res.body).toMatchObject({ status: 'waiting', task: { instructions: 'Confirm the delivery for Friday.', hangUpWhenDone: true } });
    r.phone.remoteAnswer();
    const update = await r.fake.waitForEvent('session.update', undefined, 5000);
    expect((update.session as { instructions: string }).instructions).toContain('Confirm the delivery for Friday.');
    // A session already running cannot take a new task: its instructions were set when it opened.
    await r.fake.waitForEvent('response.create', undefined, 5000);
    const again = await r.gateway.api('POST', `/v1/calls/${callId}/agent`, { assistant: { instructions: 'Something else.' } });
    expect(again.status, show(again)).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE');
  });

  it('refuses a task it cannot carry out before anyone is rung', async () => {
    const r = await rig(scope, { key: null });
    const base = { deviceId: r.phone.deviceId, to: '+4934112345678' };
    const cases: Array<[unknown, number, string]> = [
      [{ ...base, assistant: { instructions: '   ' } }, 400, 'body.assistant.instructions'],
      [{ ...base, assistant: { instructions: 'x'.repeat(4001) } }, 400, 'body.assistant.instructions'],
      [{ ...base, assistant: { instructions: 'Hi', voice: 'robot' } }, 400, 'body.assistant.voice'],
      [{ ...base, assistant: { instructions: 'Hi', tone: 'friendly' } }, 400, 'body.assistant'],
      [{ ...base, assistant: { instructions: 'Hi' }, stream: { url: 'ws://127.0.0.1:9/agent' } }, 400, 'body.assistant'],
      // No model key: the call is not placed at all.
      [{ ...base, assistant: { instructions: 'Hi' } }, 409, ''],
    ];
    for (const [body, status, path] of cases) {
      const res = await r.gateway.api('POST', '/v1/calls', body);
      expect(res.status, show(res)).toBe(status);
      if (path) expect(JSON.stringify(res.body.error.issues)).toContain(`"${path}`);
    }
    expect((await r.gateway.api<{ calls: unknown[] }>('GET', '/v1/calls')).body.calls).toEqual([]);
    expect(r.fake.requests).toHaveLength(0);
  });
});
