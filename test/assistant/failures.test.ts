import { describe, expect, it } from 'vitest';
import { callInState, until, getCall } from '../helpers/phones.js';
import { agentInfo, frequencyOf, KEY, rig, takenCall, testScope, type AssistantCallInfo } from './support.js';

const scope = testScope();

/** The failure tone (913 / 1370 / 1776 Hz, about 0.9 s) reached the phone before it hung up. */
function heardFailureTone(pcm: Buffer): void {
  expect(pcm.length).toBeGreaterThanOrEqual(16_000 * 2 * 0.8);
  const first = pcm.subarray(0, 16_000 * 2 * 0.25);
  expect(frequencyOf(first, 16_000, 50)).toBeGreaterThan(850);
  expect(frequencyOf(first, 16_000, 50)).toBeLessThan(980);
}

describe('assistant failures', () => {
  it('409 DEVICE_OFFLINE without a key, and for a call that is over', async () => {
    const r = await rig(scope, { key: null });
    const callId = await r.phone.ringIncoming('+4915100000003');
    const res = await r.gateway.api<{ error: { code: string } }>('POST', `/v1/calls/${callId}/agent`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('DEVICE_OFFLINE');
    expect(r.fake.requests).toHaveLength(0);
    expect((await getCall(r.gateway, callId)).state).toBe('ringing');

    await r.gateway.api('PUT', '/v1/settings', { assistantApiKey: KEY });
    r.phone.remoteHangup();
    await callInState(r.gateway, callId, 'ended');
    const ended = await r.gateway.api<{ error: { code: string } }>('POST', `/v1/calls/${callId}/agent`);
    expect(ended.status).toBe(409);
    expect(ended.body.error.code).toBe('DEVICE_OFFLINE');
  });

  it('a refused key leaves status error and the call ringing for a person; the key is in no log', async () => {
    const wrong = 'sk-wrong-key-9876543210ZYXWVU';
    const r = await rig(scope, { key: wrong, captureLogs: true });
    const callId = await r.phone.ringIncoming('+4915100000004');
    const res = await r.gateway.api<AssistantCallInfo>('POST', `/v1/calls/${callId}/agent`);
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('error');
    expect(res.body.error).toMatch(/401|invalid_api_key/);
    expect(res.text).not.toContain(wrong);
    expect((await getCall(r.gateway, callId)).state).toBe('ringing');
    expect(r.fake.requests).toHaveLength(1);
    // A person can still pick up.
    expect((await r.gateway.api('POST', `/v1/calls/${callId}/answer`)).status).toBe(202);
    await callInState(r.gateway, callId, 'active');
    expect((await agentInfo(r.gateway, callId)).status).toBe('error');
    expect(r.gateway.logs.join('\n')).not.toContain(wrong);
    expect(r.gateway.logs.join('\n')).toContain('assistant failed');
  });

  it('a fatal error event: status error, the caller hears the failure tone, then the call ends; no retry', async () => {
    const r = await rig(scope, { captureLogs: true });
    const callId = await takenCall(r);
    r.phone.resetReceived();
    // A non-fatal error is only logged.
    r.fake.send({ type: 'error', error: { type: 'invalid_request_error', code: 'item_truncate_invalid_item_id', message: 'no such item' } });
    r.fake.send({ type: 'error', error: { type: 'invalid_request_error', code: 'session_expired', message: 'Your session hit the maximum duration of 60 minutes.' } });
    await callInState(r.gateway, callId, 'ended');
    heardFailureTone(r.phone.receivedAudio());
    const info = await agentInfo(r.gateway, callId);
    expect(info.status).toBe('error');
    expect(info.error).toContain('maximum duration');
    expect(r.fake.requests).toHaveLength(1);
    expect(r.gateway.logs.join('\n')).not.toContain(KEY);
  });

  it('a dropped model socket: status error, failure tone, hang-up', async () => {
    const r = await rig(scope);
    const callId = await takenCall(r);
    r.phone.resetReceived();
    r.fake.connections.at(-1)!.socket.terminate();
    await callInState(r.gateway, callId, 'ended');
    heardFailureTone(r.phone.receivedAudio());
    const info = await agentInfo(r.gateway, callId);
    expect(info).toMatchObject({ requested: true, status: 'error' });
    expect(info.error).toMatch(/closed the connection/);
  });

  it('a model that stops answering pings mid-call: status error naming it, failure tone, hang-up', async () => {
    const r = await rig(scope, { ping: { audioPingIntervalMs: 100, pongTimeoutMs: 2000 } });
    const callId = await takenCall(r);
    // Answered pings keep the assistant on the call.
    await until(async () => r.fake.pings, (n) => n >= 3, { what: 'three pings answered' });
    expect((await agentInfo(r.gateway, callId)).status).toBe('live');
    r.phone.resetReceived();
    r.fake.stopAnsweringPings();
    await callInState(r.gateway, callId, 'ended', 15_000);
    heardFailureTone(r.phone.receivedAudio());
    const info = await agentInfo(r.gateway, callId);
    expect(info).toMatchObject({ requested: true, status: 'error' });
    expect(info.error).toMatch(/did not answer a ping within 2000 ms/);
  });

  it('a model that never answers: status error after the timeout, failure tone, hang-up', async () => {
    const r = await rig(scope, { responseTimeoutMs: 400 });
    const callId = await takenCall(r);
    await callInState(r.gateway, callId, 'ended');
    heardFailureTone(r.phone.receivedAudio());
    const info = await agentInfo(r.gateway, callId);
    expect(info.status).toBe('error');
    expect(info.error).toMatch(/did not answer within 400 ms/);
  });

  it('a model that never confirms the session: the ringing call is not answered', async () => {
    const r = await rig(scope, { responseTimeoutMs: 300, fake: { autoRespond: false } });
    const callId = await r.phone.ringIncoming('+4915100000005');
    const res = await r.gateway.api<AssistantCallInfo>('POST', `/v1/calls/${callId}/agent`);
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('error');
    expect(res.body.error).toMatch(/did not confirm the session/);
    expect((await getCall(r.gateway, callId)).state).toBe('ringing');
    expect(r.phone.commands.filter((c) => c.action === 'answer')).toHaveLength(0);
    const conn = r.fake.connections.at(-1)!;
    await until(async () => conn.socket.readyState, (s) => s === conn.socket.CLOSED, { what: 'model socket closed' });
  });
});
