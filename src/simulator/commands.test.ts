import { describe, expect, it } from 'vitest';
import { decideCommand, type SimCall } from './commands.js';

const call = (over: Partial<SimCall> = {}): SimCall => ({
  nativeCallId: 'sim-1',
  callId: 'c1',
  direction: 'outgoing',
  remoteNumber: '+1',
  state: 'active',
  ...over,
});
const cmd = (action: string, payload: Record<string, unknown> = {}, callId = 'c1') => ({ action, callId, payload });
const code = (d: ReturnType<typeof decideCommand>): string => (d.ok ? 'ok' : d.error.code);

describe('decideCommand', () => {
  it.each([
    // [call, command, expected]
    [null, cmd('dial', { to: '+1' }), 'ok'],
    [null, cmd('dial', {}), 'BAD_COMMAND'],
    [null, cmd('dial', { to: '**21*0015551234567#' }), 'BAD_COMMAND'],
    [null, cmd('dial', { to: '+4930123,,42#' }), 'ok'],
    [call(), cmd('dial', { to: '+1' }, 'c2'), 'DEVICE_BUSY'],
    [null, cmd('answer'), 'NO_CALL'],
    [call(), cmd('answer'), 'INVALID_STATE'],
    [call({ direction: 'incoming', state: 'ringing' }), cmd('answer'), 'ok'],
    [call({ direction: 'incoming', state: 'ringing', callId: undefined }), cmd('answer', {}, 'named-later'), 'ok'],
    [call({ direction: 'incoming', state: 'ringing' }), cmd('answer', {}, 'c2'), 'NO_CALL'],
    [call({ direction: 'incoming', state: 'active' }), cmd('reject'), 'INVALID_STATE'],
    [call({ state: 'dialing' }), cmd('hangup'), 'ok'],
    [call({ state: 'dialing' }), cmd('hold'), 'INVALID_STATE'],
    [call({ state: 'active' }), cmd('unhold'), 'INVALID_STATE'],
    [call({ state: 'held' }), cmd('unhold'), 'ok'],
    [call({ state: 'held' }), cmd('dtmf', { digits: '0*#' }), 'ok'],
    [call({ state: 'dialing' }), cmd('dtmf', { digits: '1' }), 'INVALID_STATE'],
    [call(), cmd('dtmf', { digits: '' }), 'BAD_COMMAND'],
    [call(), cmd('transfer'), 'BAD_COMMAND'],
  ] as const)('%# %j %j -> %s', (c, command, expected) => {
    expect(code(decideCommand(c, command))).toBe(expected);
  });

  it('hangup of a ringing incoming call is a rejection by the user', () => {
    expect(decideCommand(call({ direction: 'incoming', state: 'ringing' }), cmd('hangup'))).toEqual({
      ok: true,
      effect: { kind: 'event', event: 'call.disconnected', state: 'ended', payload: { cause: 'rejected' } },
    });
  });
});

describe('dial with sim (extension 1.4)', () => {
  const sims = [
    { slot: 0, carrier: 'A', defaultForCalls: false, usable: true },
    { slot: 1, carrier: 'B', defaultForCalls: true, usable: true },
    { slot: 2, carrier: 'C', defaultForCalls: false, usable: false },
  ];
  const dial = (payload: Record<string, unknown>, list = sims) => decideCommand(null, { action: 'dial', callId: 'call_1', payload: { to: '+15550100', ...payload } }, list);

  it('dials from the slot asked for, else the default, else the first usable', () => {
    expect(dial({ sim: 0 })).toEqual({ ok: true, effect: { kind: 'dial', callId: 'call_1', to: '+15550100', sim: 0 } });
    expect(dial({})).toMatchObject({ ok: true, effect: { sim: 1 } });
    expect(dial({}, [sims[2]!, { ...sims[0]!, slot: 3 }])).toMatchObject({ ok: true, effect: { sim: 3 } });
  });

  it('refuses a slot with no usable SIM and a slot that is not a number', () => {
    expect(dial({ sim: 2 })).toMatchObject({ ok: false, error: { code: 'SIM_UNAVAILABLE' } });
    expect(dial({ sim: 5 })).toMatchObject({ ok: false, error: { code: 'SIM_UNAVAILABLE' } });
    expect(dial({ sim: '1' })).toMatchObject({ ok: false, error: { code: 'BAD_COMMAND' } });
  });

  it('without a SIM list (a phone that predates the extension) the slot is not looked at', () => {
    expect(decideCommand(null, { action: 'dial', callId: 'call_1', payload: { to: '+15550100' } })).toEqual({ ok: true, effect: { kind: 'dial', callId: 'call_1', to: '+15550100' } });
  });
});
