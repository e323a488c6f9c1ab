import { describe, expect, it } from 'vitest';
import type { PhoneSimulator } from '../../src/simulator/index.js';
import type { TestGateway } from '../helpers/gateway.js';
import { callInState, until, getCall, show, testScope } from '../helpers/phones.js';
import { agent, streamInfo, TONE } from './helpers.js';

const t = testScope();

async function setIncoming(g: TestGateway, body: Record<string, string>): Promise<void> {
  const res = await g.api('PUT', '/v1/settings', body);
  expect(res.status, show(res)).toBe(200);
}

/** performance.now() when the phone received the first `answer` command (awaited). */
async function answeredAt(phone: PhoneSimulator, timeoutMs = 5000): Promise<number> {
  let at = 0;
  const onCommand = (c: { action: string }): void => {
    if (c.action === 'answer' && at === 0) at = performance.now();
  };
  phone.on('command', onCommand);
  try {
    await phone.waitFor((s) => s.commands.some((c) => c.action === 'answer'), timeoutMs);
  } finally {
    phone.off('command', onCommand);
  }
  return at;
}

describe('incoming calls with incomingStreamUrl (rule 1)', () => {
  it('answers after about incomingAutoStreamDelayMs and streams in the vendor format', async () => {
    const g = await t.gateway({ timings: { incomingAutoStreamDelayMs: 200 } });
    const a = await agent(t);
    await setIncoming(g, { incomingStreamUrl: a.url, incomingStreamFormat: 'vendor' });
    const phone = await t.phone(g, { audio: TONE });

    const rangAt = performance.now();
    const answered = answeredAt(phone);
    const callId = await phone.ringIncoming('+15550155');
    const at = await answered;
    expect(at - rangAt).toBeGreaterThanOrEqual(150);
    expect(at - rangAt).toBeLessThan(2000);

    const conn = await a.connection();
    expect(await conn.message((m) => m.event === 'connected')).toEqual({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    const start = await conn.message((m) => m.event === 'start');
    expect(start.start).toMatchObject({
      accountSid: 'local',
      callSid: callId,
      customParameters: { callId, direction: 'incoming', remoteNumber: '+15550155', deviceId: phone.deviceId },
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
    });
    await callInState(g, callId, 'active');
    const info = await until(() => streamInfo(g, callId), (i) => i.status === 'live');
    expect(info.stream).toMatchObject({ url: a.url, format: 'vendor' });
    // The stream is on the call, so the media flows: the phone's voice reaches the agent.
    await conn.message((m) => m.event === 'media');
  });

  it('streams in the raw format by default', async () => {
    const g = await t.gateway({ timings: { incomingAutoStreamDelayMs: 50 } });
    const a = await agent(t);
    await setIncoming(g, { incomingStreamUrl: a.url });
    const phone = await t.phone(g);
    const callId = await phone.ringIncoming('+15550166');
    const conn = await a.connection();
    expect(await conn.message((m) => m.type === 'start')).toEqual({
      type: 'start',
      callId,
      direction: 'incoming',
      remoteNumber: '+15550166',
      deviceId: phone.deviceId,
      format: { encoding: 'pcm_s16le', sampleRate: 16000, channels: 1, frameMs: 20 },
    });
    await callInState(g, callId, 'active');
  });

  it('does not answer a call the caller gave up on before the delay', async () => {
    // A delay long enough that the hang-up is in before it runs out, however busy the machine.
    const g = await t.gateway({ timings: { incomingAutoStreamDelayMs: 1000 } });
    const a = await agent(t);
    await setIncoming(g, { incomingStreamUrl: a.url });
    const phone = await t.phone(g);
    const callId = await phone.ringIncoming('+15550177');
    phone.remoteHangup();
    await callInState(g, callId, 'ended');
    // Past the delay (a bounded poll of 1200 ms): no answer, no agent connection.
    const quietUntil = performance.now() + 1200;
    await until(
      async () => phone.commands.length + a.count,
      (n) => n > 0 || performance.now() > quietUntil,
      { intervalMs: 25 },
    );
    expect(phone.commands.map((c) => c.action)).toEqual([]);
    expect(a.count).toBe(0);
  });
});

describe('incoming calls without incomingStreamUrl (rule 3)', () => {
  it('keep ringing until a client acts', async () => {
    const g = await t.gateway({ timings: { incomingAutoStreamDelayMs: 50 } });
    const phone = await t.phone(g);
    const callId = await phone.ringIncoming('+15550188');
    // Well past the delay (a bounded poll of 400 ms): still ringing, nothing was sent to the phone.
    const quietUntil = performance.now() + 400;
    const state = await until(
      async () => (await getCall(g, callId)).state,
      (s) => s !== 'ringing' || performance.now() > quietUntil,
      { intervalMs: 25 },
    );
    expect(state).toBe('ringing');
    expect(phone.commands).toEqual([]);
    expect(await streamInfo(g, callId)).toEqual({ stream: null, status: 'off' });
  });
});
