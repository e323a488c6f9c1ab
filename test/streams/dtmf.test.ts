import { describe, expect, it } from 'vitest';
import { testScope } from '../helpers/phones.js';
import { agent, placeCall } from './helpers.js';

const t = testScope();

describe('keypad digits reported by the phone (protocol extension 1.1)', () => {
  it('reach a vendor agent as Twilio dtmf events, one per digit, numbered in sequence', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 }, audio: { kind: 'none' } });
    const a = await agent(t);
    await placeCall(g, phone, { to: '+15550123', stream: { url: a.url, format: 'vendor' } });
    const conn = await a.connection();
    const start = await conn.message((m) => m.event === 'start');
    await phone.waitFor((s) => s.currentCall?.state === 'active');

    phone.remotePressDigits('4#');
    const first = await conn.message((m) => m.event === 'dtmf');
    const second = await conn.message((m) => m.event === 'dtmf' && m !== first);
    expect(first).toEqual({ event: 'dtmf', sequenceNumber: '2', streamSid: start.streamSid, dtmf: { track: 'inbound_track', digit: '4' } });
    expect(second).toMatchObject({ event: 'dtmf', sequenceNumber: '3', dtmf: { digit: '#' } });
  });

  it('are not sent to a raw agent, whose protocol has no message for them', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 }, audio: { kind: 'none' } });
    const a = await agent(t);
    const { call } = await placeCall(g, phone, { to: '+15550124', stream: { url: a.url } });
    const conn = await a.connection();
    await conn.message((m) => m.type === 'start');
    await phone.waitFor((s) => s.currentCall?.state === 'active');
    phone.remotePressDigits('1');
    await g.api('POST', `/v1/calls/${call.id}/hangup`);
    await conn.message((m) => m.type === 'stop');
    expect(conn.messages.map((m) => m.type)).toEqual(['start', 'stop']);
  });
});
