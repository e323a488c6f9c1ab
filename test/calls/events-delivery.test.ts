import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { acked, callInState, until, getCall, getDeliveries, getEvents, pairCredentials, phoneEvent, RawPhone, show, testScope, type Call } from '../helpers/phones.js';

const t = testScope();

const native = (): string => `native-${randomUUID()}`;

describe('phone events are applied exactly once', () => {
  it('the same eventId twice is stored and applied once and acknowledged both times', async () => {
    const g = await t.gateway();
    const hook = await t.receiver();
    expect((await g.api('PUT', '/v1/settings', { webhookUrl: hook.url })).status).toBe(200);
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const n = native();

    const ringing = phoneEvent('call.ringing', n, { direction: 'incoming', remoteNumber: '+4930555' });
    const ack1 = await phone.event(ringing);
    const callId = String(ack1.callId);
    expect(ack1).toEqual({ type: 'event.ack', eventId: ringing.eventId, callId: expect.any(String) });
    const ack2 = await phone.event(ringing);
    expect(ack2).toEqual(ack1);

    const rejected = phoneEvent('call.rejected', n, { callId });
    await phone.event(rejected);
    await phone.event(rejected);
    // A third copy without the callId still finds its call through the eventId.
    const copy = { ...rejected, callId: undefined };
    expect((await phone.event(copy)).callId).toBe(callId);

    const calls = await g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${creds.deviceId}`);
    expect(calls.body.calls.map((c) => c.id)).toEqual([callId]);
    expect((await getCall(g, callId)).state).toBe('rejected');
    const events = await getEvents(g, callId);
    expect(events.map((e) => e.eventId)).toEqual([ringing.eventId, rejected.eventId]);

    // A later event of the call (stored, moving nothing: the call is final) proves no duplicate webhook
    // was enqueued: first attempts of one call leave in timeline order, so any duplicate would come first.
    const late = phoneEvent('call.disconnected', n, { callId, payload: { cause: 'rejected' } });
    await phone.event(late);
    const hooks = await hook.waitUntil((r) => r.body.eventId === late.eventId);
    expect(hooks.n).toBe(3);
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([ringing.eventId, rejected.eventId, late.eventId]);
    expect((await getCall(g, callId)).state).toBe('rejected');
    expect((await getEvents(g, callId)).map((e) => e.event)).toEqual(['call.ringing', 'call.rejected', 'call.disconnected']);
  });

  it('an event the gateway cannot place on a call is acknowledged with callId null and stored nowhere', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const stray = phoneEvent('call.active', native());
    expect(await phone.event(stray)).toEqual({ type: 'event.ack', eventId: stray.eventId, callId: null });
    const calls = await g.api<{ calls: Call[] }>('GET', '/v1/calls');
    expect(calls.body.calls).toEqual([]);
  });

  it('events of a call are applied in the order they arrive, even when sent without waiting for acks', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const n = native();
    const ringing = phoneEvent('call.ringing', n, { direction: 'incoming', remoteNumber: '+4930556' });
    const burst = [ringing, phoneEvent('call.active', n), phoneEvent('call.holding', n), phoneEvent('call.active', n), phoneEvent('call.disconnected', n, { payload: { cause: 'remote' } })];
    for (const e of burst) phone.send(e);
    for (const e of burst) await phone.ack(e.eventId);
    const callId = String(phone.acksOf(ringing.eventId)[0]!.callId);
    for (const e of burst) expect(phone.acksOf(e.eventId)[0]!.callId).toBe(callId);
    expect((await getEvents(g, callId)).map((e) => e.eventId)).toEqual(burst.map((e) => e.eventId));
    expect(await getCall(g, callId)).toMatchObject({ state: 'ended', answeredAt: expect.any(String), endedAt: expect.any(String) });
  });
});

describe('a socket that drops between an event and its ack loses nothing', () => {
  it('raw phone: the event reached the gateway, the ack was lost; sent again after the reconnect it is applied once', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const first = await RawPhone.connect(g, creds.deviceToken);
    const n = native();
    const ringing = phoneEvent('call.ringing', n, { direction: 'incoming', remoteNumber: '+4930557' });
    first.send(ringing);
    // Wait until the gateway stored it, then drop the connection without reading the ack.
    const [stored] = (await until(() => g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${creds.deviceId}`), (r) => r.body.calls.length === 1)).body.calls;
    await first.terminate();

    // The phone does not know the callId: it reconnects with the call in its hello and resends the outbox.
    const second = await t.raw(g, creds.deviceToken, { call: { nativeCallId: n, state: 'ringing' } });
    const ack = await second.event(ringing);
    expect(ack.callId).toBe(stored!.id);
    const calls = await g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${creds.deviceId}`);
    expect(calls.body.calls.map((c) => [c.id, c.state])).toEqual([[stored!.id, 'ringing']]);
    expect((await getEvents(g, stored!.id)).map((e) => e.eventId)).toEqual([ringing.eventId]);
  });

  it('raw phone: an event written just before the connection died is applied once, whether or not it arrived', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const first = await RawPhone.connect(g, creds.deviceToken);
    const n = native();
    const ringing = phoneEvent('call.ringing', n, { direction: 'incoming', remoteNumber: '+4930558' });
    first.send(ringing);
    await first.terminate();

    const second = await t.raw(g, creds.deviceToken, { call: { nativeCallId: n, state: 'ringing' } });
    const ack = await second.event(ringing);
    const callId = String(ack.callId);
    const active = phoneEvent('call.active', n, { callId });
    await second.event(active);
    expect((await getEvents(g, callId)).map((e) => e.eventId)).toEqual([ringing.eventId, active.eventId]);
    const calls = await g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${creds.deviceId}`);
    expect(calls.body.calls).toHaveLength(1);
  });

  it('simulator: an event made while the socket is down waits in the outbox and is applied after the reconnect', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'manual' } });
    const placed = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+15559999' });
    expect(placed.status, show(placed)).toBe(202);
    const callId = placed.body.call.id;
    await acked(sim, 'call.dialing');

    const gone = sim.waitFor('disconnected');
    sim.dropSocket();
    expect((await gone).willReconnect).toBe(true);
    const back = sim.waitFor('connected');
    sim.remoteAnswer();
    expect(sim.outboxSize).toBeGreaterThanOrEqual(1);
    await back;
    const answered = await acked(sim, 'call.active');
    expect(sim.outboxSize).toBe(0);
    const call = await getCall(g, callId);
    expect(call).toMatchObject({ state: 'active', answeredAt: expect.any(String) });
    expect((await getEvents(g, callId)).map((e) => e.eventId)).toEqual([sim.events[0]!.eventId, answered.eventId]);
  });

  it('simulator: events resent after a drop whose acks were lost are stored once', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930559');
    // Pretend the acks never arrived: the outbox still holds the ringing event when the socket drops.
    const ringing = sim.events[0]!;
    (sim as unknown as { outboxQueue: unknown[] }).outboxQueue.push({ ...ringing, callId });
    const back = sim.waitFor('connected');
    sim.dropSocket();
    await back;
    await sim.waitFor((s) => s.outboxSize === 0);
    expect((await getEvents(g, callId)).map((e) => e.eventId)).toEqual([ringing.eventId]);
    expect((await g.api<{ calls: Call[] }>('GET', '/v1/calls')).body.calls).toHaveLength(1);
    expect(sim.protocolViolations).toEqual([]);
  });
});

describe('hello reconciles calls after a reconnect', () => {
  it('a call the gateway thinks is live but the phone no longer has is ended: call.disconnected, cause other', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930560');
    expect((await g.api('POST', `/v1/calls/${callId}/answer`)).status).toBe(202);
    await acked(sim, 'call.active');

    await sim.disconnect();
    sim.endCallSilently();
    await sim.connect();
    const ended = await callInState(g, callId, 'ended');
    expect(ended.endedAt).toBeDefined();
    const last = (await getEvents(g, callId)).at(-1)!;
    expect(last).toMatchObject({ event: 'call.disconnected', payload: { cause: 'other' } });
    expect(sim.events.map((e) => e.eventId)).not.toContain(last.eventId);
  });

  it('a listener of taken-up calls that throws costs the phone neither its welcome nor its call', async () => {
    const g = await t.gateway({ captureLogs: true });
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930562');
    expect((await g.api('POST', `/v1/calls/${callId}/answer`)).status).toBe(202);
    await acked(sim, 'call.active');
    g.services.calls.on('resumed', () => {
      throw new Error('a broken resume listener');
    });

    await sim.disconnect();
    // The hello names the live call, which is taken up again ('resumed'); the welcome still comes.
    await sim.connect();
    const mark = sim.events.length;
    sim.remoteHangup();
    await acked(sim, 'call.disconnected', mark);
    expect((await getEvents(g, callId)).map((e) => e.event)).toEqual(['call.ringing', 'call.active', 'call.disconnected']);
    expect(g.logs.some((line) => line.includes('a broken resume listener') && line.includes(callId))).toBe(true);
  });

  it('a call the phone still has is kept', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'manual' } });
    const placed = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+15558888' });
    const callId = placed.body.call.id;
    await acked(sim, 'call.dialing');
    await sim.disconnect();
    await sim.connect();
    // An event after the hello on the same socket: once it is acknowledged, the hello was handled.
    const mark = sim.events.length;
    sim.remoteAnswer();
    await acked(sim, 'call.active', mark);
    expect(await getCall(g, callId)).toMatchObject({ state: 'active' });
    expect((await getEvents(g, callId)).map((e) => e.event)).toEqual(['call.dialing', 'call.active']);
  });

  it('an incoming call whose ack was lost is recognised by its nativeCallId', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const first = await RawPhone.connect(g, creds.deviceToken);
    const n = native();
    const ringing = phoneEvent('call.ringing', n, { direction: 'incoming', remoteNumber: '+4930561' });
    const { callId } = await first.event(ringing);
    await first.terminate();
    const second = await t.raw(g, creds.deviceToken, { call: { nativeCallId: n, state: 'ringing' } });
    // Any later message is handled after the hello.
    const probe = phoneEvent('call.pulling', n);
    await second.event(probe);
    expect((await getCall(g, String(callId))).state).toBe('ringing');
  });

  it('the phone\'s own report of how the call ended, held in its outbox, still reaches the timeline after the reconcile', async () => {
    // The default window (the tests' 200 ms is shorter): a stall between the welcome and the report
    // must not let the reconcile run first.
    const g = await t.gateway({ timings: { reconcileDelayMs: 1000 } });
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930562');
    await sim.disconnect();
    sim.remoteHangup();
    const hangup = sim.events.at(-1)!;
    await sim.connect();
    await acked(sim, 'call.disconnected');
    const call = await getCall(g, callId);
    expect(call.state).toBe('ended');
    const events = await getEvents(g, callId);
    expect(events.filter((e) => e.eventId === hangup.eventId)).toHaveLength(1);
    expect(events.find((e) => e.eventId === hangup.eventId)!.payload).toEqual({ cause: 'missed' });
    // The gateway waits a moment after the hello before reconciling, so the phone's own report from
    // its outbox ends the call with its true cause and the gateway adds no second disconnect.
    expect(events.map((e) => e.event)).toEqual(['call.ringing', 'call.disconnected']);
    expect(call.endedAt).toBe(events[1]!.receivedAt);
  });

  it('applies what the phone sent within the window before reconciling, however long the gateway took over its hello', async () => {
    // No window at all: the reconcile is due while the gateway is still busy with the hello (it
    // stores the app's version after the welcome), and the phone's report waits behind that work.
    const g = await t.gateway({ timings: { reconcileDelayMs: 0 } });
    const creds = await pairCredentials(g);
    const first = await RawPhone.connect(g, creds.deviceToken);
    const n = native();
    const { callId } = await first.event(phoneEvent('call.ringing', n, { direction: 'incoming', remoteNumber: '+4930565' }));
    await first.terminate();
    // The phone is back without the call, and its outbox follows the hello on the same socket.
    const second = await t.raw(g, creds.deviceToken, false);
    const missed = phoneEvent('call.disconnected', n, { callId, payload: { cause: 'missed' } });
    const ack = second.next((m) => m.type === 'event.ack' && m.eventId === missed.eventId);
    second.send({ type: 'hello', appVersion: 'raw-1' });
    second.send(missed);
    await ack;
    await callInState(g, String(callId), 'ended');
    const events = await getEvents(g, String(callId));
    expect(events.map((e) => e.event)).toEqual(['call.ringing', 'call.disconnected']);
    expect(events[1]!.payload).toEqual({ cause: 'missed' });
  });
});

describe('a phone that stays away', () => {
  it('has its live call ended after phoneGraceMs, with call.disconnected (cause other) on the timeline', async () => {
    const grace = 300;
    const g = await t.gateway({ timings: { phoneGraceMs: grace } });
    const sim = await t.phone(g, { reconnect: false });
    const callId = await sim.ringIncoming('+4930563');
    expect((await g.api('POST', `/v1/calls/${callId}/answer`)).status).toBe(202);
    await acked(sim, 'call.active');

    const left = Date.now();
    await sim.disconnect();
    const ended = await callInState(g, callId, 'ended', 5000);
    expect(Date.parse(ended.endedAt!) - left).toBeGreaterThanOrEqual(grace - 50);
    const last = (await getEvents(g, callId)).at(-1)!;
    expect(last.event).toBe('call.disconnected');
    expect(last.payload).toMatchObject({ cause: 'other', reason: expect.any(String) });
  });

  it('keeps the call when the phone is back within the grace period', async () => {
    const g = await t.gateway({ timings: { phoneGraceMs: 1200 } });
    const back = await t.phone(g, { dial: { outcome: 'manual' } });
    const away = await t.phone(g, { reconnect: false });
    const placed = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: back.deviceId, to: '+15557777' });
    const callId = placed.body.call.id;
    await acked(back, 'call.dialing');
    const witness = await away.ringIncoming('+4930564');

    // Both phones leave, `back` first; only `away` stays away. Once the grace period of `away` has run
    // out, that of `back` (started earlier) has too.
    await back.disconnect();
    await away.disconnect();
    await back.connect();
    await callInState(g, witness, 'ended', 5000);

    const mark = back.events.length;
    back.remoteAnswer();
    await acked(back, 'call.active', mark);
    expect((await getCall(g, callId)).state).toBe('active');
    expect((await getEvents(g, callId)).map((e) => e.event)).toEqual(['call.dialing', 'call.active']);
  });

  it('a phone that comes back after the grace period still holding that call is told to hang it up', async () => {
    const g = await t.gateway({ timings: { phoneGraceMs: 150 } });
    const sim = await t.phone(g, { reconnect: false });
    const callId = await sim.ringIncoming('+4930565');
    expect((await g.api('POST', `/v1/calls/${callId}/answer`)).status).toBe(202);
    await acked(sim, 'call.active');
    await sim.disconnect();
    await callInState(g, callId, 'ended');

    // The phone was only unreachable: the call is still going on the handset, and its hello says so.
    expect(sim.currentCall).toMatchObject({ callId, state: 'active' });
    await sim.connect();
    // The gateway has told everyone the call ended, and answers 409 INVALID_STATE to a hangup, so
    // only the gateway can stop the handset's call: it should send the hangup itself.
    await sim.waitFor((s) => s.commands.some((c) => c.action === 'hangup' && c.callId === callId), 3000);
    await sim.waitFor((s) => s.currentCall === null);
    // The handset's own report of that hangup is acknowledged, but the call ended once: one call.disconnected.
    const own = await acked(sim, 'call.disconnected');
    const events = await getEvents(g, callId);
    expect(events.filter((e) => e.event === 'call.disconnected')).toHaveLength(1);
    expect(events.some((e) => e.eventId === own.eventId)).toBe(false);
    const placed = await g.api('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+15550123' });
    expect(placed.status, show(placed)).toBe(202);
  });

  it('a phone that returns as the grace period expires, its own call.disconnected in its outbox, leaves one call.disconnected and one webhook', async () => {
    const g = await t.gateway({ timings: { phoneGraceMs: 100 } });
    const hook = await t.receiver();
    expect((await g.api('PUT', '/v1/settings', { webhookUrl: hook.url })).status).toBe(200);
    const sim = await t.phone(g, { reconnect: false });
    const callId = await sim.ringIncoming('+4930568');
    expect((await g.api('POST', `/v1/calls/${callId}/answer`)).status).toBe(202);
    await acked(sim, 'call.active');
    await sim.disconnect();
    // While away the caller hung up: the phone keeps that event until the gateway acknowledges it.
    sim.remoteHangup();
    await callInState(g, callId, 'ended');
    await sim.connect();
    await acked(sim, 'call.disconnected');
    const events = await getEvents(g, callId);
    expect(events.map((e) => e.event)).toEqual(['call.ringing', 'call.active', 'call.disconnected']);
    expect(events[2]!.payload).toMatchObject({ cause: 'other', source: 'gateway' });
    // A webhook job is stored in the same transaction as its timeline entry: none for the phone's copy.
    const deliveries = await until(() => getDeliveries(g, `?callId=${callId}`), (d) => d.some((x) => x.event === 'call.disconnected'), { what: 'the disconnect delivered' });
    expect(deliveries.map((d) => d.event).sort()).toEqual(['call.active', 'call.disconnected', 'call.ringing']);
  });
});

describe('across a restart of the gateway', () => {
  it('an event stored before the restart and sent again after it is applied once', async () => {
    const dataDir = t.tempDir();
    const first = await t.gateway({ dataDir });
    const creds = await pairCredentials(first);
    const phone = await RawPhone.connect(first, creds.deviceToken);
    const n = native();
    const ringing = phoneEvent('call.ringing', n, { direction: 'incoming', remoteNumber: '+4930566' });
    const { callId } = await phone.event(ringing);
    await phone.close();
    await first.stop();

    const second = await t.gateway({ dataDir });
    const again = await t.raw(second, creds.deviceToken, { call: { nativeCallId: n, callId, state: 'ringing' } });
    expect((await again.event(ringing)).callId).toBe(callId);
    expect((await getEvents(second, String(callId))).map((e) => e.eventId)).toEqual([ringing.eventId]);
    expect((await second.api<{ calls: Call[] }>('GET', '/v1/calls')).body.calls).toHaveLength(1);
    expect((await getCall(second, String(callId))).state).toBe('ringing');
  });

  it('a live call whose phone does not come back to the restarted gateway is ended after the grace period', async () => {
    const dataDir = t.tempDir();
    const first = await t.gateway({ dataDir });
    const sim = await t.phone(first, { reconnect: false });
    const callId = await sim.ringIncoming('+4930567');
    await sim.stop();
    await first.stop();

    const second = await t.gateway({ dataDir, timings: { phoneGraceMs: 200 } });
    const ended = await callInState(second, callId, 'ended', 5000);
    expect(ended.endedAt).toBeDefined();
    expect((await getEvents(second, callId)).at(-1)).toMatchObject({ event: 'call.disconnected', payload: { cause: 'other' } });
  });
});

describe('a real phone\'s ordering', () => {
  it('a phone that reports call.dialing before acknowledging the dial gets its 202 and its event applied', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const n = native();
    let dialing: ReturnType<typeof phoneEvent> | undefined;
    void phone.next((m) => m.type === 'command' && m.action === 'dial').then((cmd) => {
      dialing = phoneEvent('call.dialing', n, { callId: cmd.callId, direction: 'outgoing', remoteNumber: '+15550999' });
      phone.send(dialing);
      phone.send({ type: 'ack', commandId: cmd.commandId, ok: true });
    });
    const res = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: creds.deviceId, to: '+15550999' });
    expect(res.status, show(res)).toBe(202);
    await phone.ack(dialing!.eventId);
    expect(await getCall(g, res.body.call.id)).toMatchObject({ state: 'dialing', nativeCallId: n });
  });
});
