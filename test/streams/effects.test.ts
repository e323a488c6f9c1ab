import { describe, expect, it } from 'vitest';
import type { CommandMessage, PhoneSimulator } from '../../src/simulator/index.js';
import { callInState, until, getCall, getDevice, show, testScope, type Call, type ErrorBody } from '../helpers/phones.js';
import { agent, closedPort, liveRawCall, placeCall, refusingServer, streamInfo, TONE, type Json, type StreamInfoBody } from './helpers.js';

const t = testScope();

/** The first command of that action the phone received (already, or still to come). */
async function commandSeen(phone: PhoneSimulator, action: string, timeoutMs: number): Promise<CommandMessage> {
  await phone.waitFor((s) => s.commands.some((c) => c.action === action), timeoutMs);
  return phone.commands.find((c) => c.action === action)!;
}

type Attached = StreamInfoBody & { call: Call };

describe('stream effects', () => {
  it('waits while the call is dialing and connects once it is answered', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'manual' } });
    const a = await agent(t);
    const { call } = await placeCall(g, phone, { stream: { url: a.url } });
    await callInState(g, call.id, 'dialing');
    expect(await streamInfo(g, call.id)).toEqual({ stream: { url: a.url }, status: 'waiting' });
    expect(a.count).toBe(0);

    phone.remoteAnswer();
    const conn = await a.connection();
    await conn.message((m) => m.type === 'start');
    const info = await until(() => streamInfo(g, call.id), (i) => i.status === 'live', { what: 'stream live' });
    expect(info).toEqual({ stream: { url: a.url }, status: 'live' });
    expect(a.count).toBe(1);
  });

  it('sends stop and closes the agent socket when the remote party hangs up', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const a = await agent(t);
    const { call } = await placeCall(g, phone, { stream: { url: a.url, format: 'vendor' } });
    const conn = await a.connection();
    await conn.message((m) => m.event === 'start');
    await callInState(g, call.id, 'active');
    phone.remoteHangup();
    await conn.message((m) => m.event === 'stop');
    expect((await conn.closed).code).toBe(1000);
    expect((await callInState(g, call.id, 'ended')).state).toBe('ended');
    expect((await streamInfo(g, call.id)).status).toBe('ended');
  });

  it('hangs up the call when the agent closes its socket', async () => {
    const { g, phone, conn, call } = await liveRawCall(t);
    await conn.close(1000);
    const hangup = await commandSeen(phone, 'hangup', 3000);
    expect(hangup.callId).toBe(call.id);
    await callInState(g, call.id, 'ended');
    const info = await streamInfo(g, call.id);
    expect(info.status).toBe('ended');
    expect(info.error).toBeUndefined();
  });

  it('reports status error with the reason, and hangs up, when the agent dies without a close frame (1006)', async () => {
    const { g, phone, conn, call } = await liveRawCall(t);
    conn.ws.terminate();
    const hangup = await commandSeen(phone, 'hangup', 3000);
    expect(hangup.callId).toBe(call.id);
    await callInState(g, call.id, 'ended');
    const info = await streamInfo(g, call.id);
    expect(info.status).toBe('error');
    expect(info.error).toMatch(/lost without a close frame \(1006\)/);
  });

  it('hints once, in the log and in GET /stream, that a raw agent sending Twilio Media Streams JSON wants format vendor', async () => {
    const { g, conn, call } = await liveRawCall(t, {}, { captureLogs: true });
    expect((await streamInfo(g, call.id)).hint).toBeUndefined();
    conn.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    conn.send({ event: 'media', streamSid: 'MZ1', media: { payload: Buffer.alloc(160, 0xff).toString('base64') } });
    conn.send({ event: 'mark', streamSid: 'MZ1', mark: { name: 'm' } });
    const info = await until(() => streamInfo(g, call.id), (i) => i.hint !== undefined, { what: 'the hint' });
    expect(info).toMatchObject({ status: 'live', hint: 'looks like Twilio Media Streams: set stream.format to vendor' });
    expect(info.error).toBeUndefined();
    expect(g.logs.filter((l) => l.includes('set stream.format to vendor'))).toHaveLength(1);
  });

  it('hangs up and reports status error with its text when the agent is unreachable', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const url = `ws://127.0.0.1:${await closedPort()}/agent`;
    const { call } = await placeCall(g, phone, { stream: { url } });
    await commandSeen(phone, 'hangup', 5000);
    await callInState(g, call.id, 'ended');
    const info = await streamInfo(g, call.id);
    expect(info.status).toBe('error');
    expect(info.stream).toEqual({ url });
    expect(typeof info.error).toBe('string');
    expect(info.error!.length).toBeGreaterThan(0);
    expect(info.error).toMatch(/ECONNREFUSED|refused|connect/i);
  });

  it('hangs up and reports status error when the agent refuses the upgrade with HTTP 500', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const server = t.track(await refusingServer());
    const { call } = await placeCall(g, phone, { stream: { url: server.url, format: 'vendor' } });
    await commandSeen(phone, 'hangup', 5000);
    await callInState(g, call.id, 'ended');
    expect(server.upgrades).toBe(1);
    const info = await streamInfo(g, call.id);
    expect(info.status).toBe('error');
    expect(info.error).toMatch(/500/);
  });

  it('DELETE /stream answers 204, closes the agent socket and lets the call go on', async () => {
    const { g, phone, a, conn, call } = await liveRawCall(t, { audio: TONE });

    const del = await g.api('DELETE', `/v1/calls/${call.id}/stream`);
    expect(del.status, show(del)).toBe(204);
    expect(del.text).toBe('');
    await conn.message((m) => m.type === 'stop');
    expect((await conn.closed).code).toBe(1000);
    // The call goes on: still active, no hangup sent, the phone's audio still flows.
    const framesAtClose = phone.framesSent;
    await phone.waitFor((s) => s.framesSent >= framesAtClose + 10, 2000);
    expect((await getCall(g, call.id)).state).toBe('active');
    expect(phone.commands.some((c) => c.action === 'hangup')).toBe(false);
    // contract.md: detached is `ended`.
    expect(await streamInfo(g, call.id)).toEqual({ stream: { url: a.url }, status: 'ended' });
    expect(a.count).toBe(1);
  });

  it('DELETE /stream while the call is still dialing: the answered call never connects', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'manual' } });
    const a = await agent(t);
    const { call } = await placeCall(g, phone, { stream: { url: a.url } });
    await callInState(g, call.id, 'dialing');
    const del = await g.api('DELETE', `/v1/calls/${call.id}/stream`);
    expect(del.status, show(del)).toBe(204);
    phone.remoteAnswer();
    await callInState(g, call.id, 'active');
    expect((await streamInfo(g, call.id)).status).toBe('ended');
    // A later stream attaches and connects at once, as the call is answered.
    const res = await g.api<Attached>('POST', `/v1/calls/${call.id}/stream`, { url: a.url });
    expect(res.status, show(res)).toBe(202);
    const conn = await a.connection();
    await conn.message((m) => m.type === 'start');
    expect(a.count).toBe(1);
  });

  for (const outcome of ['no-answer', 'busy'] as const) {
    it(`never connects to the agent when the outgoing call is not answered (${outcome})`, async () => {
      const g = await t.gateway();
      const phone = await t.phone(g, { dial: { outcome, ringMs: 30 } });
      const a = await agent(t);
      const { call } = await placeCall(g, phone, { stream: { url: a.url } });
      await callInState(g, call.id, 'ended');
      const info = await until(() => streamInfo(g, call.id), (i) => i.status !== 'waiting', { what: 'the stream leaves waiting' });
      expect(info.status).toBe('ended');
      expect(info.error).toBeUndefined();
      expect(a.count).toBe(0);
    });
  }
});

describe('POST /v1/calls/{callId}/stream', () => {
  it('answers a ringing incoming call first, then connects', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g);
    const a = await agent(t);
    const callId = await phone.ringIncoming('+15550133');
    expect((await getCall(g, callId)).state).toBe('ringing');
    expect(await streamInfo(g, callId)).toEqual({ stream: null, status: 'off' });

    const res = await g.api<Attached>('POST', `/v1/calls/${callId}/stream`, { url: a.url, format: 'vendor', parameters: { k: 'v' } });
    expect(res.status, show(res)).toBe(202);
    expect(res.body).toMatchObject({ stream: { url: a.url, format: 'vendor', parameters: { k: 'v' } }, call: { id: callId, direction: 'incoming' } });
    expect(['waiting', 'connecting', 'live']).toContain(res.body.status);
    const answer = await commandSeen(phone, 'answer', 3000);
    expect(answer.callId).toBe(callId);

    const conn = await a.connection();
    const start = await conn.message((m) => m.event === 'start');
    expect(start.start.customParameters).toEqual({ callId, direction: 'incoming', remoteNumber: '+15550133', deviceId: phone.deviceId, k: 'v' });
    await callInState(g, callId, 'active');
    expect((await until(() => streamInfo(g, callId), (i) => i.status === 'live')).status).toBe('live');
  });

  it('replaces an attached stream: the old agent gets stop and is closed, the new one connects', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const first = await agent(t);
    const second = await agent(t);
    const { call } = await placeCall(g, phone, { stream: { url: first.url } });
    const old = await first.connection();
    await old.message((m) => m.type === 'start');
    await callInState(g, call.id, 'active');

    const res = await g.api<Attached>('POST', `/v1/calls/${call.id}/stream`, { url: second.url, format: 'vendor' });
    expect(res.status, show(res)).toBe(202);
    expect(res.body.stream).toEqual({ url: second.url, format: 'vendor' });
    expect(await old.message((m) => m.type === 'stop')).toEqual({ type: 'stop', callId: call.id });
    expect((await old.closed).code).toBe(1000);
    const conn = await second.connection();
    await conn.message((m) => m.event === 'start');
    const info = await until(() => streamInfo(g, call.id), (i) => i.status === 'live');
    expect(info.stream).toEqual({ url: second.url, format: 'vendor' });
    // Replacing is not the agent leaving: the call stays up.
    expect((await getCall(g, call.id)).state).toBe('active');
    expect(phone.commands.some((c) => c.action === 'hangup')).toBe(false);
    expect(first.count).toBe(1);
  });

  it('answers 409 DEVICE_OFFLINE on an ended call', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'busy', ringMs: 10 } });
    const a = await agent(t);
    const { call } = await placeCall(g, phone);
    await callInState(g, call.id, 'ended');
    const res = await g.api<ErrorBody>('POST', `/v1/calls/${call.id}/stream`, { url: a.url });
    expect(res.status, show(res)).toBe(409);
    expect(res.body.error.code).toBe('DEVICE_OFFLINE');
    expect(a.count).toBe(0);
  });

  it('validates the body: url must be ws:// or wss://, format raw or vendor, parameters strings', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'manual' } });
    const { call } = await placeCall(g, phone);
    const bad: Json[] = [
      { url: 'http://127.0.0.1:1/agent' },
      { url: 'https://agent.example.com' },
      { url: 'not a url' },
      {},
      { url: 'ws://127.0.0.1:1/a', format: 'mp3' },
      { url: 'ws://127.0.0.1:1/a', parameters: { n: 1 } },
    ];
    for (const body of bad) {
      const res = await g.api<ErrorBody>('POST', `/v1/calls/${call.id}/stream`, body);
      expect(res.status, `${JSON.stringify(body)} -> ${show(res)}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    const wss = await g.api<Attached>('POST', `/v1/calls/${call.id}/stream`, { url: 'wss://agent.example.com/voice' });
    expect(wss.status, show(wss)).toBe(202);
    expect(wss.body.status).toBe('waiting');
  });

  it('GET /stream is {stream:null,status:"off"} without a stream; unknown calls give 404', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'manual' } });
    const { call } = await placeCall(g, phone);
    expect(await streamInfo(g, call.id)).toEqual({ stream: null, status: 'off' });
    for (const [method, body] of [['GET'], ['POST', { url: 'ws://127.0.0.1:1/a' }], ['DELETE']] as const) {
      const res = await g.api<ErrorBody>(method, '/v1/calls/call_doesnotexist/stream', body);
      expect(res.status, `${method} ${show(res)}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const anon = await g.api<ErrorBody>('GET', `/v1/calls/${call.id}/stream`, undefined, { key: null });
    expect(anon.status).toBe(401);
  });
});

describe('MediaInfo.streaming', () => {
  it('is true while the phone sends audio and false after the call', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { audio: TONE, dial: { outcome: 'manual' } });
    const { call, media } = await placeCall(g, phone);
    expect(media).toEqual({
      path: `/v1/calls/${call.id}/media`,
      format: { encoding: 'pcm_s16le', sampleRate: 16000, channels: 1, frameMs: 20 },
      streaming: false,
    });
    await callInState(g, call.id, 'dialing');
    phone.remoteAnswer();
    const live = await until(
      () => g.api<{ call: Call; media: Json }>('GET', `/v1/calls/${call.id}`),
      (r) => r.body.media?.streaming === true,
      { what: 'media.streaming true' },
    );
    expect(live.body.call.state).toBe('active');
    phone.remoteHangup();
    await callInState(g, call.id, 'ended');
    const after = await until(
      () => g.api<{ call: Call; media: Json }>('GET', `/v1/calls/${call.id}`),
      (r) => r.body.media?.streaming === false,
      { what: 'media.streaming false' },
    );
    expect(after.body.media.path).toBe(`/v1/calls/${call.id}/media`);
  });

  it('turns false as soon as the call is put on hold or the phone\'s socket drops, while the call goes on', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { audio: TONE, dial: { outcome: 'answer', ringMs: 20 }, reconnect: false });
    const { call } = await placeCall(g, phone);
    const streaming = async (): Promise<boolean> => (await g.api<{ media: Json }>('GET', `/v1/calls/${call.id}`)).body.media['streaming'] as boolean;
    await until(streaming, (s) => s, { what: 'streaming' });

    // The phone sends no frames while the call is held (phone-protocol.md section 4).
    expect((await g.api('POST', `/v1/calls/${call.id}/hold`)).status).toBe(202);
    await callInState(g, call.id, 'held');
    await until(streaming, (s) => !s, { what: 'not streaming while held' });
    expect((await g.api('POST', `/v1/calls/${call.id}/unhold`)).status).toBe(202);
    await callInState(g, call.id, 'active');
    await until(streaming, (s) => s, { what: 'streaming again' });

    phone.dropSocket();
    await until(() => getDevice(g, phone.deviceId!), (d) => !d.connected, { what: 'the phone offline' });
    expect(await streaming()).toBe(false);
    expect((await getCall(g, call.id)).state).toBe('active');
  });
});
