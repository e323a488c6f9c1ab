import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { acked, callInState, until, getCall, getEvents, show, testScope, type Call, type Command, type ErrorBody } from '../helpers/phones.js';

const t = testScope();

interface Placed {
  call: Call;
  command: Command;
  media: { path: string; format: Record<string, unknown>; streaming: boolean };
}

async function place(g: TestGateway, body: Record<string, unknown>): Promise<Placed> {
  const res = await g.api<Placed>('POST', '/v1/calls', body);
  expect(res.status, show(res)).toBe(202);
  return res.body;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

describe('an outgoing call', () => {
  it('answered: queued -> dialing -> active, then hung up by the client -> ended', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'manual' } });
    const deviceId = sim.deviceId!;

    const placed = await place(g, { deviceId, to: '+15551234567', metadata: { ticket: 42, tags: ['a'] } });
    expect(placed.call).toMatchObject({ deviceId, remoteNumber: '+15551234567', direction: 'outgoing', state: 'queued', metadata: { ticket: 42, tags: ['a'] } });
    expect(placed.call.answeredAt).toBeUndefined();
    expect(placed.call.endedAt).toBeUndefined();
    expect(placed.call.createdAt).toBe(placed.call.updatedAt);
    expect(placed.command).toEqual({ type: 'command', commandId: expect.stringMatching(UUID), callId: placed.call.id, action: 'dial', payload: { to: '+15551234567' } });
    expect(placed.media).toEqual({
      path: `/v1/calls/${placed.call.id}/media`,
      format: { encoding: 'pcm_s16le', sampleRate: 16000, channels: 1, frameMs: 20 },
      streaming: false,
    });
    // 202 means the phone had the dial command.
    expect(sim.commands.map((c) => [c.commandId, c.action, c.callId])).toEqual([[placed.command.commandId, 'dial', placed.call.id]]);
    expect(sim.acks.map((a) => [a.commandId, a.ok])).toEqual([[placed.command.commandId, true]]);

    const dialing = await acked(sim, 'call.dialing');
    expect(dialing.callId).toBe(placed.call.id);
    expect(await getCall(g, placed.call.id)).toMatchObject({ state: 'dialing', nativeCallId: dialing.nativeCallId });

    sim.remoteAnswer();
    await acked(sim, 'call.active');
    const active = await getCall(g, placed.call.id);
    expect(active.state).toBe('active');
    expect(active.answeredAt).toBeDefined();
    expect(active.endedAt).toBeUndefined();
    expect(Date.parse(active.answeredAt!)).toBeGreaterThanOrEqual(Date.parse(active.createdAt));

    const hangup = await g.api<{ accepted: boolean; command: Command; call: Call }>('POST', `/v1/calls/${placed.call.id}/hangup`);
    expect(hangup.status, show(hangup)).toBe(202);
    expect(hangup.body.accepted).toBe(true);
    expect(hangup.body.command).toMatchObject({ type: 'command', action: 'hangup', callId: placed.call.id, commandId: expect.stringMatching(UUID) });
    const bye = await acked(sim, 'call.disconnected');
    expect(bye.payload).toEqual({ cause: 'local' });
    const ended = await getCall(g, placed.call.id);
    expect(ended.state).toBe('ended');
    expect(ended.endedAt).toBeDefined();
    expect(ended.answeredAt).toBe(active.answeredAt);
    expect(ended.metadata).toEqual({ ticket: 42, tags: ['a'] });

    const events = await getEvents(g, placed.call.id);
    expect(events.map((e) => e.event)).toEqual(['call.dialing', 'call.active', 'call.disconnected']);
    expect(events.map((e) => e.eventId)).toEqual(sim.events.map((e) => e.eventId));
    expect(events[2]!.payload).toEqual({ cause: 'local' });
  });

  it('answered by the simulator on its own, then hung up by the remote party', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const { call } = await place(g, { deviceId: sim.deviceId, to: '100' });
    await acked(sim, 'call.active');
    expect((await getCall(g, call.id)).state).toBe('active');
    sim.remoteHangup();
    await acked(sim, 'call.disconnected');
    const ended = await getCall(g, call.id);
    expect(ended).toMatchObject({ state: 'ended', answeredAt: expect.any(String), endedAt: expect.any(String) });
    expect((await getEvents(g, call.id)).at(-1)).toMatchObject({ event: 'call.disconnected', payload: { cause: 'remote' } });
  });

  it('unanswered: ends with cause missed and no answeredAt', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'no-answer', ringMs: 20 } });
    const { call } = await place(g, { deviceId: sim.deviceId, to: '101' });
    await acked(sim, 'call.disconnected');
    const ended = await getCall(g, call.id);
    expect(ended.state).toBe('ended');
    expect(ended.answeredAt).toBeUndefined();
    expect(ended.endedAt).toBeDefined();
    const events = await getEvents(g, call.id);
    expect(events.map((e) => e.event)).toEqual(['call.dialing', 'call.disconnected']);
    expect(events[1]!.payload).toEqual({ cause: 'missed' });
  });

  it('busy: ends with cause busy', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'busy', ringMs: 20 } });
    const { call } = await place(g, { deviceId: sim.deviceId, to: '102' });
    await acked(sim, 'call.disconnected');
    const ended = await getCall(g, call.id);
    expect(ended).toMatchObject({ state: 'ended', endedAt: expect.any(String) });
    expect(ended.answeredAt).toBeUndefined();
    expect((await getEvents(g, call.id)).at(-1)!.payload).toEqual({ cause: 'busy' });
  });

  it('failed: the phone reports call.failed and the call is failed', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'failed', ringMs: 20, failReason: 'no SIM' } });
    const { call } = await place(g, { deviceId: sim.deviceId, to: '103' });
    await acked(sim, 'call.failed');
    const failed = await getCall(g, call.id);
    expect(failed).toMatchObject({ state: 'failed', endedAt: expect.any(String) });
    expect(failed.answeredAt).toBeUndefined();
    expect((await getEvents(g, call.id)).map((e) => [e.event, e.payload])).toEqual([
      ['call.dialing', {}],
      ['call.failed', { reason: 'no SIM' }],
    ]);
  });

  it('hung up by the client while still dialing', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'manual' } });
    const { call } = await place(g, { deviceId: sim.deviceId, to: '104' });
    await acked(sim, 'call.dialing');
    const res = await g.api('POST', `/v1/calls/${call.id}/hangup`);
    expect(res.status, show(res)).toBe(202);
    await acked(sim, 'call.disconnected');
    const ended = await getCall(g, call.id);
    expect(ended.state).toBe('ended');
    expect(ended.answeredAt).toBeUndefined();
  });

  it('frees the phone once it ended: a next call can be placed', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'busy', ringMs: 10 } });
    const first = await place(g, { deviceId: sim.deviceId, to: '105' });
    await callInState(g, first.call.id, 'ended');
    const second = await place(g, { deviceId: sim.deviceId, to: '106' });
    expect(second.call.id).not.toBe(first.call.id);
  });
});

describe('POST /v1/calls refusals', () => {
  it('validates the body: 400 with issue paths', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const cases: Array<[unknown, string[]]> = [
      [{}, ['body.deviceId', 'body.to']],
      [{ deviceId: sim.deviceId }, ['body.to']],
      [{ to: '+1555' }, ['body.deviceId']],
      [{ deviceId: sim.deviceId, to: '' }, ['body.to']],
      [{ deviceId: sim.deviceId, to: '1'.repeat(65) }, ['body.to']],
      [{ deviceId: sim.deviceId, to: 12345 }, ['body.to']],
      [{ deviceId: sim.deviceId, to: '+1555', webhookUrl: 'not a url' }, ['body.webhookUrl']],
      [{ deviceId: sim.deviceId, to: '+1555', webhookUrl: 'ftp://example.com/hook' }, ['body.webhookUrl']],
      [{ deviceId: sim.deviceId, to: '+1555', metadata: 'text' }, ['body.metadata']],
      [{ deviceId: sim.deviceId, to: '+1555', stream: { url: 'http://agent.example' } }, ['body.stream.url']],
      [{ deviceId: sim.deviceId, to: '+1555', stream: { url: 'wss://agent.example', format: 'mp3' } }, ['body.stream.format']],
    ];
    for (const [body, paths] of cases) {
      const res = await g.api<ErrorBody>('POST', '/v1/calls', body);
      expect(res.status, `${JSON.stringify(body)}: ${show(res)}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.issues?.map((i) => i.path).sort(), JSON.stringify(body)).toEqual(paths);
    }
    const notJson = await g.api<ErrorBody>('POST', '/v1/calls', undefined, { raw: '{"deviceId":' });
    expect(notJson.status, show(notJson)).toBe(400);
    expect(notJson.body.error.code).toBe('VALIDATION_ERROR');

    // 64 characters are fine.
    const ok = await g.api('POST', '/v1/calls', { deviceId: sim.deviceId, to: '1'.repeat(64) });
    expect(ok.status, show(ok)).toBe(202);
    expect(sim.commands).toHaveLength(1);
  });

  it('404 for an unknown phone, 401 without a key', async () => {
    const g = await t.gateway();
    const res = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: 'phone-ffffffffffff', to: '+1555' });
    expect(res.status, show(res)).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    const anon = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: 'phone-ffffffffffff', to: '+1555' }, { key: null });
    expect(anon.status, show(anon)).toBe(401);
  });

  it('409 DEVICE_OFFLINE for a paired phone that is not connected, and no call is logged', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { connect: false });
    const res = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+1555' });
    expect(res.status, show(res)).toBe(409);
    expect(res.body.error.code).toBe('DEVICE_OFFLINE');
    const list = await g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${sim.deviceId}`);
    expect(list.body.calls).toEqual([]);
  });

  it('409 DEVICE_BUSY while the phone has a call that is not final (outgoing or incoming)', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'manual' } });
    const first = await place(g, { deviceId: sim.deviceId, to: '200' });
    const busy = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '201' });
    expect(busy.status, show(busy)).toBe(409);
    expect(busy.body.error.code).toBe('DEVICE_BUSY');
    expect(sim.commands).toHaveLength(1);
    await acked(sim, 'call.dialing');
    sim.remoteBusy();
    await callInState(g, first.call.id, 'ended');

    const incoming = await sim.ringIncoming('+4930123456');
    const busyAgain = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '202' });
    expect(busyAgain.status, show(busyAgain)).toBe(409);
    expect(busyAgain.body.error.code).toBe('DEVICE_BUSY');
    expect(busyAgain.body.error.message).toContain(incoming);
  });

  it('two calls placed at once on one phone: one 202, one DEVICE_BUSY', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'manual' } });
    const [a, b] = await Promise.all([
      g.api<ErrorBody>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '300' }),
      g.api<ErrorBody>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '301' }),
    ]);
    expect([a.status, b.status].sort(), `${show(a)} / ${show(b)}`).toEqual([202, 409]);
    expect([a, b].find((r) => r.status === 409)!.body.error.code).toBe('DEVICE_BUSY');
    expect(sim.commands).toHaveLength(1);
  });

  it('409 with the phone\'s own code when the phone refuses the dial; the call is failed and the phone stays free', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    sim.ackBehaviour = { ok: false, code: 'NO_SIM', message: 'There is no SIM card in the phone' };
    const res = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+1555' });
    expect(res.status, show(res)).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'NO_SIM', message: 'There is no SIM card in the phone' });

    const list = await g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${sim.deviceId}`);
    expect(list.body.calls).toHaveLength(1);
    const refused = list.body.calls[0]!;
    expect(refused).toMatchObject({ state: 'failed', endedAt: expect.any(String), remoteNumber: '+1555' });
    expect((await getEvents(g, refused.id)).map((e) => e.event)).toEqual(['call.failed']);

    sim.ackBehaviour = 'ok';
    const next = await g.api('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+1556' });
    expect(next.status, show(next)).toBe(202);
  });

  it('504 DEVICE_TIMEOUT when the phone never acknowledges the dial; the call is failed and a hangup follows', async () => {
    const g = await t.gateway({ timings: { commandTimeoutMs: 300 } });
    const sim = await t.phone(g);
    sim.ackBehaviour = 'silent';
    const started = Date.now();
    const res = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+1555' });
    const took = Date.now() - started;
    expect(res.status, show(res)).toBe(504);
    expect(res.body.error.code).toBe('DEVICE_TIMEOUT');
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(3000);

    const [call] = (await g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${sim.deviceId}`)).body.calls;
    expect(call).toMatchObject({ state: 'failed' });
    // The phone may have the dial after all: the gateway asks it to drop the call.
    await sim.waitFor((s) => s.commands.some((c) => c.action === 'hangup' && c.callId === call!.id));
    await until(() => getEvents(g, call!.id), (events) => events.some((e) => e.event === 'call.failed'));
  });

  it('409 DEVICE_OFFLINE when the phone disconnects before acknowledging', async () => {
    const g = await t.gateway({ timings: { commandTimeoutMs: 3000 } });
    const sim = await t.phone(g, { reconnect: false });
    sim.ackBehaviour = 'silent';
    sim.once('command', () => sim.dropSocket());
    const res = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+1555' });
    expect(res.status, show(res)).toBe(409);
    expect(res.body.error.code).toBe('DEVICE_OFFLINE');
  });
});
