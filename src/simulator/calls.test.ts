import { describe, expect, it } from 'vitest';
import { eventsAt, gw, phone, useFakeGateway, waitEvent } from '../../test/helpers/fake-gateway-scope.js';

/** PhoneSimulator against a fake gateway: commands, incoming calls and the event outbox. */
useFakeGateway();

describe('commands', () => {
  it('dial: acks, reports dialing with the callId, then active', async () => {
    const sim = phone({ dial: { outcome: 'answer', ringMs: 10 } });
    await sim.connect();
    const ack = await gw.command('dial', 'call-1', { to: '+15551234' });
    expect(ack).toEqual({ type: 'ack', commandId: ack['commandId'], ok: true });
    const dialing = await waitEvent('call.dialing');
    expect(dialing).toMatchObject({
      callId: 'call-1',
      direction: 'outgoing',
      remoteNumber: '+15551234',
      payload: {},
    });
    expect(dialing['eventId']).toMatch(/^[0-9a-f-]{36}$/);
    expect(dialing['nativeCallId']).toMatch(/^sim-/);
    expect(new Date(String(dialing['occurredAt'])).toISOString()).toBe(dialing['occurredAt']);
    const active = await waitEvent('call.active');
    expect(active).toMatchObject({ callId: 'call-1', nativeCallId: dialing['nativeCallId'] });
    expect(active['eventId']).not.toBe(dialing['eventId']);
    expect(sim.currentCall).toMatchObject({ callId: 'call-1', direction: 'outgoing', state: 'active' });
    // The ack precedes the first event of the call.
    const order = gw.messages.map((m) => m.msg['type']);
    expect(order.indexOf('ack')).toBeLessThan(order.indexOf('event'));
    await sim.waitFor((s) => s.outboxSize === 0);
  });

  it('dial while a call is in progress is refused with DEVICE_BUSY', async () => {
    const sim = phone({ dial: { outcome: 'manual' } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    const ack = await gw.command('dial', 'call-2', { to: '+1666' });
    expect(ack).toMatchObject({ ok: false, error: { code: 'DEVICE_BUSY' } });
    expect(sim.currentCall?.callId).toBe('call-1');
  });

  it.each([
    ['busy', 'call.disconnected', { cause: 'busy' }],
    ['no-answer', 'call.disconnected', { cause: 'missed' }],
    ['failed', 'call.failed', { reason: 'no signal' }],
  ] as const)('dial outcome %s ends with %s', async (outcome, event, payload) => {
    const sim = phone({ dial: { outcome, ringMs: 5, failReason: 'no signal' } });
    await sim.connect();
    const ended = sim.waitFor('call', 1000, (c) => c.event === event);
    await gw.command('dial', 'call-7', { to: '+1555' });
    expect(await waitEvent(event)).toMatchObject({ callId: 'call-7', payload });
    expect((await ended).state).toBe(event === 'call.failed' ? 'failed' : 'ended');
    expect(sim.currentCall).toBeNull();
    expect(eventsAt().map((e) => e['event'])).toEqual(['call.dialing', event]);
  });

  it('manual outcome waits for remoteAnswer / remoteBusy', async () => {
    const sim = phone({ dial: { outcome: 'manual' } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await waitEvent('call.dialing');
    expect(sim.currentCall?.state).toBe('dialing');
    sim.remoteAnswer();
    await waitEvent('call.active');
    expect(() => sim.remoteBusy()).toThrow(/no fitting call/);
    await gw.command('hangup', 'call-1');
    expect(await waitEvent('call.disconnected')).toMatchObject({ payload: { cause: 'local' } });

    await gw.command('dial', 'call-2', { to: '+1555' });
    sim.remoteBusy();
    expect(await gw.waitForMessage((m) => m['event'] === 'call.disconnected' && m['callId'] === 'call-2')).toMatchObject({
      payload: { cause: 'busy' },
    });
  });

  it('hold, unhold, dtmf and hangup on an active call', async () => {
    const sim = phone({ dial: { outcome: 'answer', ringMs: 0 } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await waitEvent('call.active');
    expect(await gw.command('unhold', 'call-1')).toMatchObject({ ok: false, error: { code: 'INVALID_STATE' } });
    expect(await gw.command('hold', 'call-1')).toMatchObject({ ok: true });
    expect(await waitEvent('call.holding')).toMatchObject({ callId: 'call-1' });
    expect(sim.currentCall?.state).toBe('held');
    const dtmf = sim.waitFor('dtmf');
    expect(await gw.command('dtmf', 'call-1', { digits: '12#' })).toMatchObject({ ok: true });
    expect(await dtmf).toEqual({ digits: '12#', callId: 'call-1' });
    expect(await gw.command('unhold', 'call-1')).toMatchObject({ ok: true });
    await gw.until(() => (eventsAt().length === 4 ? true : undefined));
    await gw.command('dtmf', 'call-1', { digits: '*9' });
    expect(sim.dtmfDigits).toBe('12#*9');
    expect(await gw.command('dtmf', 'call-1', { digits: 'abc' })).toMatchObject({ ok: false, error: { code: 'BAD_COMMAND' } });
    expect(await gw.command('hold', 'other-call')).toMatchObject({ ok: false, error: { code: 'NO_CALL' } });
    await gw.command('hangup', 'call-1');
    await waitEvent('call.disconnected');
    expect(eventsAt().map((e) => e['event'])).toEqual([
      'call.dialing',
      'call.active',
      'call.holding',
      'call.active',
      'call.disconnected',
    ]);
    expect(eventsAt().every((e) => typeof e['event'] === 'string' && e['callId'] === 'call-1')).toBe(true);
    expect(sim.commands.map((c) => c.action)).toEqual(['dial', 'unhold', 'hold', 'dtmf', 'unhold', 'dtmf', 'dtmf', 'hold', 'hangup']);
  });

  it('a command for a call the phone does not have is refused with NO_CALL', async () => {
    const sim = phone();
    await sim.connect();
    expect(await gw.command('answer', 'call-9')).toMatchObject({ ok: false, error: { code: 'NO_CALL' } });
    expect(await gw.command('frobnicate', 'call-9')).toMatchObject({ ok: false, error: { code: 'BAD_COMMAND' } });
  });

  it("ackBehaviour 'silent' never acks nor acts; a refusal acks every command with it", async () => {
    const sim = phone({ ackBehaviour: 'silent' });
    await sim.connect();
    const commanded = sim.waitFor('command');
    const silentId = gw.sendCommandNoWait('dial', 'call-1', { to: '+1555' });
    await commanded;
    sim.ackBehaviour = { ok: false, code: 'NO_SIM', message: 'no SIM card' };
    expect(await gw.command('dial', 'call-2', { to: '+1555' })).toMatchObject({
      ok: false,
      error: { code: 'NO_SIM', message: 'no SIM card' },
    });
    // Messages arrive in order: the refusal's ack came, the silent command's never did.
    expect(gw.messagesOf('ack').map((a) => a['commandId'])).not.toContain(silentId);
    expect(eventsAt()).toEqual([]);
    expect(sim.currentCall).toBeNull();
  });
});

describe('incoming calls', () => {
  it('ringIncoming resolves with the callId of the event.ack; later events carry it', async () => {
    const sim = phone();
    await sim.connect();
    const callId = await sim.ringIncoming('+4930123');
    expect(callId).toBe('call-in-1');
    const [ringing] = eventsAt();
    expect(ringing).toMatchObject({ event: 'call.ringing', direction: 'incoming', remoteNumber: '+4930123', payload: {} });
    expect(ringing).not.toHaveProperty('callId');
    expect(sim.currentCall).toMatchObject({ callId, state: 'ringing' });
    await gw.command('answer', callId);
    expect(await waitEvent('call.active')).toMatchObject({ callId, nativeCallId: ringing?.['nativeCallId'] });
    sim.remoteHangup();
    expect(await waitEvent('call.disconnected')).toMatchObject({ callId, payload: { cause: 'remote' } });
    expect(sim.currentCall).toBeNull();
  });

  it('reject gives call.rejected; a caller who gives up gives a missed call', async () => {
    const sim = phone();
    await sim.connect();
    const first = await sim.ringIncoming('+1');
    await gw.command('reject', first);
    expect(await waitEvent('call.rejected')).toMatchObject({ callId: first });
    await expect(sim.ringIncoming('+2')).resolves.toBe('call-in-2');
    await expect(sim.ringIncoming('+3')).rejects.toThrow(/DEVICE_BUSY/);
    sim.remoteHangup();
    expect(await waitEvent('call.disconnected')).toMatchObject({ callId: 'call-in-2', payload: { cause: 'missed' } });
  });
});

describe('event outbox', () => {
  it('resends unacknowledged events after a dropped socket, same eventIds, in order', async () => {
    const sim = phone({ dial: { outcome: 'manual' } });
    await sim.connect();
    gw.autoAckEvents = false;
    await gw.command('dial', 'call-1', { to: '+1555' });
    const dialing = await waitEvent('call.dialing');
    expect(sim.outboxSize).toBe(1);

    const gone = sim.waitFor('disconnected');
    sim.dropSocket();
    expect((await gone).willReconnect).toBe(true);
    sim.remoteAnswer(); // while offline: queued behind call.dialing
    expect(sim.outbox.map((e) => e.event)).toEqual(['call.dialing', 'call.active']);

    const mark = gw.messages.length;
    gw.autoAckEvents = true;
    await sim.waitFor('connected');
    await sim.waitFor((s) => s.outboxSize === 0);
    const after = gw.messages.slice(mark).map((m) => m.msg);
    expect(after.map((m) => m['type'])).toEqual(['hello', 'health', 'event', 'event']);
    expect(after[0]).toMatchObject({ call: { nativeCallId: dialing['nativeCallId'], callId: 'call-1', state: 'active' } });
    expect(after[2]).toEqual(dialing);
    expect(after[3]).toMatchObject({ event: 'call.active', callId: 'call-1' });
    expect(gw.storedEvents.map((e) => e['event'])).toEqual(['call.dialing', 'call.active']);
  });

  it('gives the callId of a late event.ack to queued events of the incoming call', async () => {
    const sim = phone();
    await sim.connect();
    gw.autoAckEvents = false;
    const ring = sim.ringIncoming('+1');
    const ringing = await waitEvent('call.ringing');
    sim.remoteHangup();
    await waitEvent('call.disconnected');
    expect(sim.outbox.every((e) => e.callId === undefined)).toBe(true);
    await sim.disconnect();
    gw.autoAckEvents = true;
    await sim.connect();
    expect(await ring).toBe('call-in-1');
    await sim.waitFor((s) => s.outboxSize === 0);
    expect(sim.events.map((e) => [e.event, e.callId])).toEqual([
      ['call.ringing', undefined],
      ['call.disconnected', 'call-in-1'],
    ]);
    expect(gw.messagesOf('event').filter((e) => e['eventId'] === ringing['eventId'])).toHaveLength(2);
  });

  it('endCallSilently forgets the call: the next hello has none', async () => {
    const sim = phone({ dial: { outcome: 'manual' } });
    await sim.connect();
    await gw.command('dial', 'call-1', { to: '+1555' });
    await waitEvent('call.dialing');
    sim.endCallSilently();
    await sim.disconnect();
    const mark = gw.messages.length;
    await sim.connect();
    expect(gw.messages[mark]?.msg).toEqual({ type: 'hello', appVersion: '0.1.0-sim' });
    expect(eventsAt()).toHaveLength(1);
  });
});
