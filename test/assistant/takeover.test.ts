import { describe, expect, it } from 'vitest';
import { PhoneSimulator } from '../../src/simulator/index.js';
import { startFakeRealtime } from '../fakes/realtime-server.js';
import { callInState, until, pairCredentials, phoneEvent, show, type RawPhone, type Scope } from '../helpers/phones.js';
import type { TestGateway } from '../helpers/gateway.js';
import { agent, closedPort } from '../streams/helpers.js';
import { agentInfo, eventsOf, KEY, testScope } from './support.js';

const scope = testScope();

/** A fake model, the options of a gateway that uses it (started again with them after a restart), the gateway and a paired phone's credentials. */
async function gatewayWithModel(s: Scope) {
  const fake = await startFakeRealtime({ requireKey: KEY });
  s.defer(() => fake.close());
  const options = { dataDir: s.tempDir(), env: { ASSISTANT_REALTIME_URL: fake.url, ASSISTANT_API_KEY: KEY }, timings: { assistantResponseTimeoutMs: 3000 } };
  const first = await s.gateway(options);
  return { fake, options, first, creds: await pairCredentials(first) };
}

/**
 * A gateway, its fake model and a phone whose incoming call the assistant takes; `restart` stops
 * the gateway and the phone, starts the gateway again on the same data (with `env` over the first's)
 * and brings the phone back still in the call, as a node that takes a call over sees it (the
 * cluster's failover goes through the same path: test/cluster/failover.test.ts).
 */
async function assistantCall(s: Scope) {
  const { fake, options, first, creds } = await gatewayWithModel(s);
  const phone = s.track(new PhoneSimulator({ gatewayUrl: first.url, credentials: creds, audio: { kind: 'tone', frequency: 440, amplitude: 0.3 }, reconnect: false }));
  await phone.connect();
  const callId = await phone.ringIncoming('+4915100000009');
  const taken = await first.api('POST', `/v1/calls/${callId}/agent`);
  expect(taken.status, show(taken)).toBe(202);
  await callInState(first, callId, 'active');
  await fake.waitForEvent('response.create', undefined, 5000);
  return {
    fake,
    first,
    callId,
    /** `phoneBack: false` leaves the phone away (the gateway restarted, its phone not back yet). */
    async restart(env: Record<string, string> = {}, { phoneBack = true } = {}): Promise<{ second: TestGateway; phone: RawPhone | undefined }> {
      const nativeCallId = phone.currentCall!.nativeCallId;
      await phone.stop();
      await first.stop();
      const second = await s.gateway({ ...options, env: { ...options.env, ...env } });
      const raw = phoneBack ? await s.raw(second, creds.deviceToken, { call: { nativeCallId, callId, state: 'active' } }) : undefined;
      return { second, phone: raw };
    },
  };
}

describe('the assistant after a takeover of its call', () => {
  it('takes the call again with a new session told what was said; it does not greet again, and goes on to take the message', async () => {
    const { fake, first, callId, restart } = await assistantCall(scope);
    fake.send({ type: 'response.output_audio_transcript.done', response_id: 'r1', item_id: 'item_a1', output_index: 0, content_index: 0, transcript: "Hello, you've reached Dana's phone." });
    fake.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_c1', content_index: 0, transcript: 'Hi, Max here, the roof leaks.' });
    await until(
      async () => (await agentInfo(first, callId)).transcript,
      (lines) => lines.length === 2,
      { what: 'two transcript lines' },
    );

    const { second } = await restart();
    const events = await eventsOf(fake, 1, 'response.create');
    const update = events.find((e) => e.type === 'session.update');
    const instructions = String((update?.session as { instructions?: unknown } | undefined)?.instructions);
    expect(instructions).toContain('back on a call that was cut off');
    expect(instructions).toContain('Do not greet again');
    expect(instructions).toContain("You: Hello, you've reached Dana's phone.\nCaller: Hi, Max here, the roof leaks.");
    expect(instructions).not.toContain('recorded already');
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    const info = await until(() => agentInfo(second, callId), (i) => i.status === 'live', { what: 'the assistant live again' });
    expect(info.requested).toBe(true);
    expect(info.transcript.map((l) => l.text)).toEqual(["Hello, you've reached Dana's phone.", 'Hi, Max here, the roof leaks.']);

    fake.sendFunctionCall({ callId: 'fc_1', name: 'record_message', arguments: { callerName: 'Max', reason: 'The roof leaks.', urgency: 'high' } });
    const withMessage = await until(() => agentInfo(second, callId), (i) => i.message !== undefined, { what: 'the message stored' });
    expect(withMessage.message).toMatchObject({ callerName: 'Max', reason: 'The roof leaks.', urgency: 'high' });
  });

  it('a new session knows a message was taken already', async () => {
    const { fake, callId, restart } = await assistantCall(scope);
    fake.sendFunctionCall({ callId: 'fc_0', name: 'record_message', arguments: { callerName: 'Max', reason: 'The roof leaks.', urgency: 'normal' } });
    await fake.waitForEvent('conversation.item.create', undefined, 5000);

    const { second } = await restart();
    const events = await eventsOf(fake, 1, 'response.create');
    const update = events.find((e) => e.type === 'session.update');
    expect(String((update?.session as { instructions?: unknown }).instructions)).toContain('The message was recorded already');
    expect((await agentInfo(second, callId)).message).toMatchObject({ callerName: 'Max' });
  });

  it('until the phone is back, the call reads as the assistant\'s, ended (no session survives a restart)', async () => {
    const { callId, restart } = await assistantCall(scope);
    const { second } = await restart({}, { phoneBack: false });
    expect(await agentInfo(second, callId)).toMatchObject({ requested: true, status: 'ended', transcript: [] });
  });

  it('a call handed back before the takeover stays without the assistant', async () => {
    const { fake, first, callId, restart } = await assistantCall(scope);
    const released = await first.api('DELETE', `/v1/calls/${callId}/agent`);
    expect(released.status, show(released)).toBe(200);
    // The call goes on with an agent stream: its opening on the new node shows the takeover was handled.
    const streamAgent = await agent(scope);
    const attached = await first.api('POST', `/v1/calls/${callId}/stream`, { url: streamAgent.url });
    expect(attached.status, show(attached)).toBe(202);
    await streamAgent.connection(0);

    const { second } = await restart();
    await streamAgent.connection(1);
    // The assistant would have taken the call by now (its state is set as the takeover is told): it did not.
    expect((await agentInfo(second, callId)).status).toBe('off');
    expect(fake.connections).toHaveLength(1);
  });

  it('a new session that cannot be had after the takeover: the caller hears the failure tone, then the gateway hangs up', async () => {
    const { fake, callId, restart } = await assistantCall(scope);
    const nowhere = `ws://127.0.0.1:${await closedPort()}/v1/realtime`;
    const { second, phone } = await restart({ ASSISTANT_REALTIME_URL: nowhere });
    if (!phone) throw new Error('the phone is back');
    let frames = 0;
    phone.ws.on('message', (_data, isBinary) => {
      if (isBinary) frames += 1;
    });
    const hangup = await phone.next((m) => m.type === 'command' && m.action === 'hangup', 10_000);
    expect(hangup).toMatchObject({ callId });
    // The tone (about 0.9 s, 45 frames of 20 ms) went to the phone before the hang-up; the first
    // few may have gone before this test listened.
    expect(frames).toBeGreaterThanOrEqual(25);
    const info = await agentInfo(second, callId);
    expect(info.status).toBe('error');
    expect(fake.connections).toHaveLength(1);
  });

  it('an outgoing call given to the assistant while it dialled, taken over before it was answered, gets the assistant once answered', async () => {
    const { fake, options, first, creds } = await gatewayWithModel(scope);
    const sim = scope.track(new PhoneSimulator({ gatewayUrl: first.url, credentials: creds, audio: { kind: 'none' }, dial: { outcome: 'manual' }, reconnect: false }));
    await sim.connect();
    const placed = await first.api<{ call: { id: string } }>('POST', '/v1/calls', { deviceId: creds.deviceId, to: '+15550177' });
    expect(placed.status, show(placed)).toBe(202);
    const callId = placed.body.call.id;
    await callInState(first, callId, 'dialing');
    expect((await first.api('POST', `/v1/calls/${callId}/agent`)).body).toMatchObject({ status: 'waiting' });
    const nativeCallId = sim.currentCall!.nativeCallId;
    await sim.stop();
    await first.stop();

    const second = await scope.gateway(options);
    const phone = await scope.raw(second, creds.deviceToken, { call: { nativeCallId, callId, state: 'dialing' } });
    await phone.event(phoneEvent('call.active', nativeCallId, { callId, direction: 'outgoing', remoteNumber: '+15550177' }));
    await callInState(second, callId, 'active');
    await eventsOf(fake, 0, 'response.create');
    const info = await until(() => agentInfo(second, callId), (i) => i.status === 'live', { what: 'the assistant live once answered' });
    expect(info.requested).toBe(true);
  });
});
