import { describe, expect, it } from 'vitest';
import type { PhoneSimulator } from '../../src/simulator/index.js';
import type { TestGateway } from '../helpers/gateway.js';
import { acked, callInState, getCall, getEvents, show, testScope, type Call, type Command, type ErrorBody } from '../helpers/phones.js';

const t = testScope();

type ActionResult = { accepted: boolean; command: Command; call: Call };

/** An outgoing call the simulator answered. */
async function activeCall(g: TestGateway, sim: PhoneSimulator): Promise<string> {
  const mark = sim.events.length;
  const res = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+15557654321' });
  expect(res.status, show(res)).toBe(202);
  await acked(sim, 'call.active', mark);
  return res.body.call.id;
}

async function act(g: TestGateway, callId: string, action: string, body?: unknown) {
  return g.api<ActionResult & ErrorBody>('POST', `/v1/calls/${callId}/${action}`, body);
}

describe('hold and unhold', () => {
  it('active -> held -> active; answeredAt is kept from the first answer', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await activeCall(g, sim);
    const answeredAt = (await getCall(g, callId)).answeredAt;

    let mark = sim.events.length;
    const hold = await act(g, callId, 'hold');
    expect(hold.status, show(hold)).toBe(202);
    expect(hold.body.command).toMatchObject({ action: 'hold', callId });
    await acked(sim, 'call.holding', mark);
    expect((await getCall(g, callId)).state).toBe('held');

    const holdAgain = await act(g, callId, 'hold');
    expect(holdAgain.status, show(holdAgain)).toBe(409);
    expect(holdAgain.body.error.code).toBe('INVALID_STATE');

    mark = sim.events.length;
    const unhold = await act(g, callId, 'unhold');
    expect(unhold.status, show(unhold)).toBe(202);
    expect(unhold.body.command.action).toBe('unhold');
    await acked(sim, 'call.active', mark);
    const resumed = await getCall(g, callId);
    expect(resumed.state).toBe('active');
    expect(resumed.answeredAt).toBe(answeredAt);

    expect((await getEvents(g, callId)).map((e) => e.event)).toEqual(['call.dialing', 'call.active', 'call.holding', 'call.active']);
  });
});

describe('DTMF', () => {
  it('sends the digits to the phone on an active call and on a held one', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await activeCall(g, sim);
    const tones = sim.waitFor('dtmf');
    const res = await act(g, callId, 'dtmf', { digits: '0123456789*#' });
    expect(res.status, show(res)).toBe(202);
    expect(res.body).toMatchObject({ accepted: true, command: { type: 'command', action: 'dtmf', callId, payload: { digits: '0123456789*#' } }, call: { id: callId, state: 'active' } });
    expect(await tones).toEqual({ digits: '0123456789*#', callId });

    const mark = sim.events.length;
    expect((await act(g, callId, 'hold')).status).toBe(202);
    await acked(sim, 'call.holding', mark);
    const held = await act(g, callId, 'dtmf', { digits: '9'.repeat(64) });
    expect(held.status, show(held)).toBe(202);
    expect(sim.dtmfDigits).toBe(`0123456789*#${'9'.repeat(64)}`);
  });

  it('validates digits: 0-9 * # only, 1 to 64 of them', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await activeCall(g, sim);
    for (const body of [{ digits: 'abc' }, { digits: '12 3' }, { digits: '' }, { digits: '1'.repeat(65) }, { digits: 5 }, {}, { digits: '+1' }]) {
      const res = await act(g, callId, 'dtmf', body);
      expect(res.status, `${JSON.stringify(body)}: ${show(res)}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.issues?.map((i) => i.path)).toEqual(['body.digits']);
    }
    const notJson = await g.api<ErrorBody>('POST', `/v1/calls/${callId}/dtmf`, undefined, { raw: 'digits=1' });
    expect(notJson.status, show(notJson)).toBe(400);
    expect(sim.commands.filter((c) => c.action === 'dtmf')).toEqual([]);
  });
});

describe('actions in the wrong state', () => {
  it('409 INVALID_STATE and no command to the phone', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'manual' } });

    // A ringing incoming call.
    const incoming = await sim.ringIncoming('+4930111111');
    for (const [action, body] of [['hold', undefined], ['unhold', undefined], ['dtmf', { digits: '1' }]] as const) {
      const res = await act(g, incoming, action, body);
      expect(res.status, `${action} on ringing: ${show(res)}`).toBe(409);
      expect(res.body.error.code).toBe('INVALID_STATE');
    }
    expect((await act(g, incoming, 'reject')).status).toBe(202);
    await acked(sim, 'call.rejected');

    // A dialing outgoing call.
    const placed = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+15550000' });
    expect(placed.status, show(placed)).toBe(202);
    const outgoing = placed.body.call.id;
    await acked(sim, 'call.dialing');
    for (const [action, body] of [['answer', undefined], ['reject', undefined], ['hold', undefined], ['unhold', undefined], ['dtmf', { digits: '1' }]] as const) {
      const res = await act(g, outgoing, action, body);
      expect(res.status, `${action} on dialing outgoing: ${show(res)}`).toBe(409);
      expect(res.body.error.code).toBe('INVALID_STATE');
    }
    sim.remoteAnswer();
    await acked(sim, 'call.active');
    for (const action of ['answer', 'reject', 'unhold']) {
      const res = await act(g, outgoing, action);
      expect(res.status, `${action} on active outgoing: ${show(res)}`).toBe(409);
      expect(res.body.error.code).toBe('INVALID_STATE');
    }
    expect((await act(g, outgoing, 'hangup')).status).toBe(202);
    await callInState(g, outgoing, 'ended');

    // An ended call.
    for (const [action, body] of [['hangup', undefined], ['hold', undefined], ['unhold', undefined], ['answer', undefined], ['reject', undefined], ['dtmf', { digits: '1' }]] as const) {
      const res = await act(g, outgoing, action, body);
      expect(res.status, `${action} on ended: ${show(res)}`).toBe(409);
      expect(res.body.error.code).toBe('INVALID_STATE');
      expect(res.body.error.message).toEqual(expect.any(String));
    }
    expect(sim.commands.map((c) => c.action)).toEqual(['reject', 'dial', 'hangup']);
  });

  it('409 DEVICE_OFFLINE when the phone of a live call is away, 409 with the phone\'s code when it refuses', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await activeCall(g, sim);

    sim.ackBehaviour = { ok: false, code: 'AUDIO_BUSY', message: 'the phone cannot hold now' };
    const refused = await act(g, callId, 'hold');
    expect(refused.status, show(refused)).toBe(409);
    expect(refused.body.error).toEqual({ code: 'AUDIO_BUSY', message: 'the phone cannot hold now' });
    expect((await getCall(g, callId)).state).toBe('active');
    sim.ackBehaviour = 'ok';

    await sim.disconnect();
    const offline = await act(g, callId, 'hangup');
    expect(offline.status, show(offline)).toBe(409);
    expect(offline.body.error.code).toBe('DEVICE_OFFLINE');
    const dtmf = await act(g, callId, 'dtmf', { digits: '5' });
    expect(dtmf.status, show(dtmf)).toBe(409);
    expect(dtmf.body.error.code).toBe('DEVICE_OFFLINE');
  });

  it('504 DEVICE_TIMEOUT when the phone does not acknowledge an action', async () => {
    const g = await t.gateway({ timings: { commandTimeoutMs: 250 } });
    const sim = await t.phone(g);
    const callId = await activeCall(g, sim);
    sim.ackBehaviour = 'silent';
    const res = await act(g, callId, 'hold');
    expect(res.status, show(res)).toBe(504);
    expect(res.body.error.code).toBe('DEVICE_TIMEOUT');
    expect((await getCall(g, callId)).state).toBe('active');
  });
});

describe('unknown calls and actions', () => {
  it('404 NOT_FOUND for every endpoint of a call that does not exist', async () => {
    const g = await t.gateway();
    const id = 'call_00000000000000000000';
    const requests: Array<[string, string, unknown?]> = [
      ['GET', `/v1/calls/${id}`],
      ['GET', `/v1/calls/${id}/events`],
      ['GET', `/v1/calls/${id}/transcript`],
      ['POST', `/v1/calls/${id}/answer`],
      ['POST', `/v1/calls/${id}/reject`],
      ['POST', `/v1/calls/${id}/hangup`],
      ['POST', `/v1/calls/${id}/hold`],
      ['POST', `/v1/calls/${id}/unhold`],
      ['POST', `/v1/calls/${id}/dtmf`, { digits: '1' }],
    ];
    for (const [method, path, body] of requests) {
      const res = await g.api<ErrorBody>(method, path, body);
      expect(res.status, `${method} ${path}: ${show(res)}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('an action that does not exist is refused with 400', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930222222');
    const res = await act(g, callId, 'transfer');
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.issues?.map((i) => i.path)).toEqual(['path.action']);
    expect(sim.commands).toEqual([]);
  });
});

describe('reading calls', () => {
  it('GET /v1/calls/{id} returns the call with its media info; the transcript is empty', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await activeCall(g, sim);
    const one = await g.api<{ call: Call; media: { path: string; format: Record<string, unknown>; streaming: boolean } }>('GET', `/v1/calls/${callId}`);
    expect(one.status, show(one)).toBe(200);
    expect(one.body.call).toMatchObject({ id: callId, state: 'active', direction: 'outgoing' });
    expect(one.body.media).toEqual({ path: `/v1/calls/${callId}/media`, format: { encoding: 'pcm_s16le', sampleRate: 16000, channels: 1, frameMs: 20 }, streaming: false });
    const transcript = await g.api<{ transcript: unknown[] }>('GET', `/v1/calls/${callId}/transcript`);
    expect(transcript.status, show(transcript)).toBe(200);
    expect(transcript.body).toEqual({ transcript: [] });
  });

  it('the timeline is oldest first with the phone\'s occurredAt and the server\'s receivedAt', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await activeCall(g, sim);
    let mark = sim.events.length;
    expect((await act(g, callId, 'hold')).status).toBe(202);
    await acked(sim, 'call.holding', mark);
    mark = sim.events.length;
    expect((await act(g, callId, 'hangup')).status).toBe(202);
    await acked(sim, 'call.disconnected', mark);

    const events = await getEvents(g, callId);
    expect(events.map((e) => e.event)).toEqual(['call.dialing', 'call.active', 'call.holding', 'call.disconnected']);
    sim.events.forEach((sent, i) => {
      const stored = events[i]!;
      expect(stored.eventId).toBe(sent.eventId);
      expect(stored.occurredAt).toBe(sent.occurredAt);
      expect(stored.payload).toEqual(sent.payload);
      expect(Date.parse(stored.receivedAt)).toBeGreaterThanOrEqual(Date.parse(sent.occurredAt) - 5);
    });
    const received = events.map((e) => Date.parse(e.receivedAt));
    expect([...received].sort((a, b) => a - b)).toEqual(received);
  });

  it('GET /v1/calls filters by deviceId, state and direction, newest first', async () => {
    const g = await t.gateway();
    const a = await t.phone(g, { name: 'A', dial: { outcome: 'answer', ringMs: 5 } });
    const b = await t.phone(g, { name: 'B', dial: { outcome: 'busy', ringMs: 5 } });

    // A: outgoing ended, incoming rejected, incoming ringing. B: outgoing ended (busy), incoming ended (missed).
    const aOut = await activeCall(g, a);
    expect((await act(g, aOut, 'hangup')).status).toBe(202);
    await callInState(g, aOut, 'ended');
    const aRejected = await a.ringIncoming('+4930000010');
    expect((await act(g, aRejected, 'reject')).status).toBe(202);
    await callInState(g, aRejected, 'rejected');
    const bOut = (await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: b.deviceId, to: '+15550011' })).body.call.id;
    await callInState(g, bOut, 'ended');
    const bMissed = await b.ringIncoming('+4930000012');
    b.remoteHangup();
    await callInState(g, bMissed, 'ended');
    const aRinging = await a.ringIncoming('+4930000013');

    const ids = async (query: string) => {
      const res = await g.api<{ calls: Call[]; nextBefore: string | null }>('GET', `/v1/calls${query}`);
      expect(res.status, `${query}: ${show(res)}`).toBe(200);
      expect(res.body.nextBefore).toBeNull();
      return res.body.calls.map((c) => c.id);
    };
    expect(await ids('')).toEqual([aRinging, bMissed, bOut, aRejected, aOut]);
    expect(await ids(`?deviceId=${a.deviceId}`)).toEqual([aRinging, aRejected, aOut]);
    expect(await ids(`?deviceId=${b.deviceId}`)).toEqual([bMissed, bOut]);
    expect(await ids('?state=ended')).toEqual([bMissed, bOut, aOut]);
    expect(await ids('?state=rejected')).toEqual([aRejected]);
    expect(await ids('?state=ringing')).toEqual([aRinging]);
    expect(await ids('?state=active')).toEqual([]);
    expect(await ids('?direction=incoming')).toEqual([aRinging, bMissed, aRejected]);
    expect(await ids('?direction=outgoing')).toEqual([bOut, aOut]);
    expect(await ids(`?deviceId=${a.deviceId}&direction=incoming&state=rejected`)).toEqual([aRejected]);
    expect(await ids(`?deviceId=${b.deviceId}&direction=outgoing&state=ended`)).toEqual([bOut]);
    expect(await ids('?deviceId=phone-000000000000')).toEqual([]);

    const all = (await g.api<{ calls: Call[] }>('GET', '/v1/calls')).body.calls;
    const created = all.map((c) => c.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
  });

  it('GET /v1/calls validates its query', async () => {
    const g = await t.gateway();
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'limit=1.5', 'state=talking', 'direction=sideways', 'before=yesterday']) {
      const res = await g.api<ErrorBody>('GET', `/v1/calls?${query}`);
      expect(res.status, `${query}: ${show(res)}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.issues?.[0]?.path).toMatch(/^query\./);
    }
    for (const query of ['limit=1', 'limit=200', 'before=2030-01-01T00:00:00Z', 'before=2030-01-01T00:00:00.123456Z', 'before=2030-01-01T01:00:00%2B01:00']) {
      const res = await g.api('GET', `/v1/calls?${query}`);
      expect(res.status, `${query}: ${show(res)}`).toBe(200);
    }
  });
});
