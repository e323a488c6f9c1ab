import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { SettingsRepo } from '../../src/store/index.js';
import { callInState, until, pairCredentials, phoneEvent, show, testScope, type RawPhone } from '../helpers/phones.js';
import { placeCall, streamInfo } from './helpers.js';

const t = testScope();

/** Acks the next command of `action` the gateway sends the raw phone; returns it. */
async function ackCommand(phone: RawPhone, action: string): Promise<Record<string, unknown>> {
  const command = await phone.next((m) => m.type === 'command' && m.action === action);
  phone.send({ type: 'ack', commandId: command.commandId, ok: true });
  return command;
}

describe('stream URLs with a #fragment', () => {
  it('are refused wherever a stream URL is given: a new call, a stream attached later, the settings', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g);
    const url = 'ws://127.0.0.1:9/agent#part';

    const placed = await g.api('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+15550100', stream: { url } });
    expect(placed.status, show(placed)).toBe(400);
    expect(placed.body.error.issues).toEqual([expect.objectContaining({ path: 'body.stream.url', message: expect.stringContaining('#') })]);

    const { call } = await placeCall(g, phone);
    const attached = await g.api('POST', `/v1/calls/${call.id}/stream`, { url });
    expect(attached.status, show(attached)).toBe(400);
    expect(attached.body.error.issues).toEqual([expect.objectContaining({ path: 'body.url' })]);

    const saved = await g.api('PUT', '/v1/settings', { incomingStreamUrl: url });
    expect(saved.status, show(saved)).toBe(400);
    expect(saved.body.error.issues).toEqual([expect.objectContaining({ path: 'body.incomingStreamUrl' })]);
  });

  it('is a start error in INCOMING_STREAM_URL and ASSISTANT_REALTIME_URL', async () => {
    for (const variable of ['INCOMING_STREAM_URL', 'ASSISTANT_REALTIME_URL']) {
      const started = t.gateway({ env: { [variable]: 'wss://agent.example.com/voice#x' } });
      await expect(started, variable).rejects.toThrow(ConfigError);
      await expect(started, variable).rejects.toThrow(new RegExp(`${variable}: .*#`));
    }
  });

  it('a saved one from before fails the stream and hangs up, and the phone gets its ack', async () => {
    const dataDir = t.tempDir();
    const before = await t.gateway({ dataDir });
    await new SettingsRepo(before.store.db).write({ incomingStreamUrl: 'ws://127.0.0.1:9/agent#part' });
    const { deviceToken } = await pairCredentials(before);
    await before.stop();

    const g = await t.gateway({ dataDir, timings: { incomingAutoStreamDelayMs: 20 } });
    const phone = await t.raw(g, deviceToken);
    const nativeCallId = `native-${randomUUID()}`;
    const ringing = await phone.event(phoneEvent('call.ringing', nativeCallId, { direction: 'incoming', remoteNumber: '+4930100' }));
    const callId = String(ringing.callId);
    await ackCommand(phone, 'answer');
    const active = phoneEvent('call.active', nativeCallId, { callId });
    const ack = await phone.event(active);
    expect(ack).toMatchObject({ type: 'event.ack', eventId: active.eventId, callId });
    expect(phone.messages.filter((m) => m.type === 'error')).toEqual([]);

    // The spec's "agent unreachable": status error with its reason, and the call is hung up.
    await ackCommand(phone, 'hangup');
    const info = await until(() => streamInfo(g, callId), (i) => i.status === 'error', { what: 'stream error' });
    expect(info.error).toMatch(/fragment|#/);
    await phone.event(phoneEvent('call.disconnected', nativeCallId, { callId, payload: { cause: 'local' } }));
    await callInState(g, callId, 'ended');
  });

  it('a change listener that throws costs neither the phone its ack nor the listeners after it their change', async () => {
    const g = await t.gateway({ captureLogs: true });
    g.services.calls.on('change', () => {
      throw new Error('a broken listener');
    });
    const seen: string[] = [];
    g.services.calls.on('change', ({ call }) => seen.push(call.state));
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);
    const ringing = phoneEvent('call.ringing', `native-${randomUUID()}`, { direction: 'incoming', remoteNumber: '+4930100' });
    const ack = await phone.event(ringing);
    expect(ack).toMatchObject({ type: 'event.ack', eventId: ringing.eventId, callId: expect.any(String) });
    expect(seen).toEqual(['ringing']);
    expect(g.logs.some((line) => line.includes('a broken listener') && line.includes(String(ack.callId)))).toBe(true);
  });
});
