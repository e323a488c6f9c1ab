import { describe, expect, it } from 'vitest';
import { openLive } from '../console/support.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { callInState, until, getCall } from '../helpers/phones.js';
import { agentInfo, frequencyOf, KEY, pcmOf, rig, takenCall, testScope, tone } from './support.js';

const scope = testScope();

describe('the assistant on a call', () => {
  it('opens the GA session with the agent settings, the key and the model', async () => {
    const r = await rig(scope, { env: { ASSISTANT_MODEL: 'gpt-realtime-test' } });
    const put = await r.gateway.api('PUT', '/v1/agent', { ownerName: 'Dana Weber', about: 'Dana repairs roofs in Leipzig.', voice: 'coral' });
    expect(put.status).toBe(200);
    const callId = await takenCall(r);

    const request = r.fake.requests.at(-1)!;
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers['openai-beta']).toBeUndefined();
    expect(new URL(request.url, 'http://x').searchParams.get('model')).toBe('gpt-realtime-test');

    const update = await r.fake.waitForEvent('session.update');
    const session = update.session as {
      type: string;
      instructions: string;
      audio: {
        input: { format: unknown; turn_detection: { type: string }; transcription: unknown };
        output: { format: unknown; voice: string };
      };
      tools: Array<{ name: string }>;
    };
    expect(session.type).toBe('realtime');
    expect(session.instructions).toContain('Dana Weber');
    expect(session.instructions).toContain('Dana repairs roofs in Leipzig.');
    expect(session.audio.output.voice).toBe('coral');
    expect(session.audio.input.format).toEqual({ type: 'audio/pcm', rate: 24000 });
    expect(session.audio.output.format).toEqual({ type: 'audio/pcm', rate: 24000 });
    expect(session.audio.input.turn_detection.type).toBe('server_vad');
    expect(session.audio.input.transcription).toBeTruthy();
    expect(session.tools.map((t) => t.name).sort()).toEqual(['end_call', 'record_message']);

    // The greeting is asked for right after the session, before the caller said anything.
    const info = await agentInfo(r.gateway, callId);
    expect(info).toMatchObject({ requested: true, status: 'live', transcript: [] });
  });

  it('streams the caller up at 24 kHz and plays the model down at 16 kHz', async () => {
    const r = await rig(scope, { toneHz: 440 });
    await takenCall(r);

    // Caller: 440 Hz at 16 kHz arrives as 24 kHz PCM (a 20 ms frame becomes about 480 samples).
    const chunks: Buffer[] = [];
    while (chunks.reduce((n, c) => n + c.length, 0) < 24_000 * 2 * 0.4) chunks.push(pcmOf(await r.fake.waitForEvent('input_audio_buffer.append', undefined, 3000)));
    for (const c of chunks.slice(1)) expect(Math.abs(c.length - 960)).toBeLessThanOrEqual(4);
    const up = Buffer.concat(chunks);
    expect(frequencyOf(up, 24_000, 100)).toBeGreaterThan(420);
    expect(frequencyOf(up, 24_000, 100)).toBeLessThan(460);

    // Model: 1 kHz at 24 kHz reaches the phone as 1 kHz at 16 kHz, at 2/3 of the bytes.
    r.phone.resetReceived();
    r.fake.sendAudio(tone(24_000, 1000, 300), 'item_greeting');
    r.fake.sendAudio(tone(24_000, 1000, 300).subarray(0, 24_000 * 2 * 0.3), 'item_greeting');
    await r.phone.waitFor((s) => s.receivedAudio().length >= 16_000 * 2 * 0.56, 5000);
    const down = r.phone.receivedAudio();
    const hz = frequencyOf(down, 16_000, 100);
    expect(hz).toBeGreaterThan(970);
    expect(hz).toBeLessThan(1030);
  });

  it('stores transcripts and the message, answers the tool call, and returns them', async () => {
    const r = await rig(scope);
    const callId = await takenCall(r, '+4915100000009');
    r.fake.send({ type: 'response.output_audio_transcript.done', response_id: 'r1', item_id: 'item_a1', output_index: 0, content_index: 0, transcript: "Hello, you've reached Dana's phone." });
    r.fake.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_c1', content_index: 0, transcript: 'Hi, Max here, the roof leaks.' });
    r.fake.sendFunctionCall({ callId: 'fc_1', name: 'record_message', arguments: { callerName: 'Max Mustermann', reason: 'The roof leaks', callbackNumber: '+491701234567', urgency: 'high' } });

    const output = await r.fake.waitForEvent('conversation.item.create', (e) => (e.item as { type?: string }).type === 'function_call_output');
    expect(output.item).toMatchObject({ type: 'function_call_output', call_id: 'fc_1' });
    expect(JSON.parse((output.item as { output: string }).output)).toMatchObject({ ok: true });
    await r.fake.waitForEvent('response.create');

    const transcript = await until(
      async () => (await r.gateway.api<{ transcript: Array<{ role: string; text: string }> }>('GET', `/v1/calls/${callId}/transcript`)).body.transcript,
      (t) => t.length === 2,
      { what: 'two transcript lines' },
    );
    expect(transcript.map((l) => [l.role, l.text])).toEqual([
      ['agent', "Hello, you've reached Dana's phone."],
      ['caller', 'Hi, Max here, the roof leaks.'],
    ]);

    const info = await until(() => agentInfo(r.gateway, callId), (i) => i.message !== undefined, { what: 'message' });
    expect(info.transcript).toHaveLength(2);
    expect(info.message).toMatchObject({
      callId,
      remoteNumber: '+4915100000009',
      callerName: 'Max Mustermann',
      reason: 'The roof leaks',
      callbackNumber: '+491701234567',
      urgency: 'high',
    });
    const list = await r.gateway.api<{ messages: unknown[] }>('GET', '/v1/agent/messages');
    expect(list.status).toBe(200);
    expect(list.body.messages).toEqual([info.message]);
  });

  it('barge-in: clears unplayed audio and truncates the item at what was heard', async () => {
    const r = await rig(scope);
    const callId = await takenCall(r);
    r.phone.resetReceived();
    r.fake.sendAudio(tone(24_000, 800, 3000), 'item_long');
    await r.phone.waitFor((s) => s.receivedAudio().length >= 16_000 * 2 * 0.3, 5000);
    const heardBefore = r.phone.receivedAudio().length / 32;
    r.fake.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 1200, item_id: 'item_caller_2' });
    const truncate = await r.fake.waitForEvent('conversation.item.truncate');
    expect(truncate).toMatchObject({ item_id: 'item_long', content_index: 0 });
    const endMs = truncate.audio_end_ms as number;
    expect(endMs).toBeGreaterThanOrEqual(heardBefore - 25);
    // What was written to the phone before the truncate reaches it (frames written in the same turn
    // may arrive after the model's message does); nothing after the clear does, so a truncate past
    // what the caller heard never comes within reach.
    await r.phone.waitFor((s) => s.receivedAudio().length / 32 + 100 >= endMs, 2000).catch(() => {
      throw new Error(`truncated at ${endMs} ms, but the phone heard ${r.phone.receivedAudio().length / 32} ms`);
    });
    expect(endMs).toBeLessThan(2500);

    // More of the interrupted item is dropped; the caller hears nothing of it. The next item plays.
    r.fake.sendAudio(tone(24_000, 800, 200), 'item_long');
    r.fake.sendAudio(tone(24_000, 500, 200), 'item_next');
    await r.phone.waitFor((s) => s.receivedAudio().length >= (endMs + 190) * 32, 5000);
    // Then end the call: the total heard shows the rest of the 3 s item never played.
    r.fake.sendFunctionCall({ callId: 'fc_end', name: 'end_call', arguments: {} });
    await callInState(r.gateway, callId, 'ended');
    const heardMs = r.phone.receivedAudio().length / 32;
    expect(heardMs).toBeLessThan(endMs + 200 + 150);
  });

  it('end_call hangs up after the goodbye has played', async () => {
    const r = await rig(scope);
    const callId = await takenCall(r);
    r.phone.resetReceived();
    r.fake.sendAudio(tone(24_000, 600, 400), 'item_bye');
    r.fake.sendFunctionCall({ callId: 'fc_bye', name: 'end_call', arguments: {} });
    await callInState(r.gateway, callId, 'ended');
    // All 400 ms of the goodbye reached the phone before the hangup.
    expect(r.phone.receivedAudio().length).toBeGreaterThanOrEqual(400 * 32 - 640);
    const info = await until(() => agentInfo(r.gateway, callId), (i) => i.status !== 'live', { what: 'the assistant session ends' });
    expect(info.status).toBe('ended');
    const conn = r.fake.connections.at(-1)!;
    await until(async () => conn.socket.readyState, (s) => s === conn.socket.CLOSED, { what: 'model socket closed' });
  });

  it('DELETE hands the call back: the model socket closes, the call goes on', async () => {
    const r = await rig(scope);
    const callId = await takenCall(r);
    const conn = r.fake.connections.at(-1)!;
    const closed = new Promise<number>((resolve) => conn.socket.once('close', (code) => resolve(code)));
    const res = await r.gateway.api<{ status: string; requested: boolean }>('DELETE', `/v1/calls/${callId}/agent`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requested: true, status: 'ended', transcript: [] });
    expect(await closed).toBe(1000);
    expect((await getCall(r.gateway, callId)).state).toBe('active');
    expect(r.phone.currentCall?.state).toBe('active');
  });

  it('an outgoing call handed over while dialling waits, then goes live when answered', async () => {
    const r = await rig(scope);
    r.phone.dial = { ...r.phone.dial, outcome: 'manual' };
    const placed = await r.gateway.api<{ call: { id: string } }>('POST', '/v1/calls', { deviceId: r.phone.deviceId, to: '+4915100000011' });
    expect(placed.status).toBe(202);
    const callId = placed.body.call.id;
    await callInState(r.gateway, callId, 'dialing');
    const res = await r.gateway.api<{ status: string }>('POST', `/v1/calls/${callId}/agent`);
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('waiting');
    expect(r.fake.requests).toHaveLength(0);
    r.phone.remoteAnswer();
    await r.fake.waitForEvent('response.create', undefined, 5000);
    await until(() => agentInfo(r.gateway, callId), (i) => i.status === 'live', { what: 'assistant live' });
  });

  it('GET agent on a call the assistant never had', async () => {
    const r = await rig(scope);
    const callId = await r.phone.ringIncoming('+4915100000002');
    const res = await r.gateway.api('GET', `/v1/calls/${callId}/agent`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ requested: false, status: 'off', transcript: [] });
    expect((await r.gateway.api('GET', '/v1/calls/call_nope/agent')).status).toBe(404);
    expect((await r.gateway.api('POST', '/v1/calls/call_nope/agent')).status).toBe(404);
  });
});

describe('the message in webhooks', () => {
  const scope = testScope();

  it('rides along in the body of the call events that follow it (the transcript in the last one), and reaches the live channel', async () => {
    const r = await rig(scope);
    const hooks = await scope.receiver('/hooks');
    await r.gateway.api('PUT', '/v1/settings', { webhookUrl: hooks.url });
    const live = await openLive(r.gateway, { authorization: `Bearer ${TEST_API_KEY}` });
    scope.defer(() => live.close());
    const callId = await takenCall(r, '+4915100000077');
    r.fake.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_c9', content_index: 0, transcript: 'Erika here, about my invoice.' });
    await until(() => agentInfo(r.gateway, callId), (i) => i.transcript.length === 1, { what: 'a transcript line' });
    r.fake.sendFunctionCall({ callId: 'fc_m', name: 'record_message', arguments: { callerName: 'Erika', reason: 'Invoice question', urgency: 'low' } });
    // The console's live channel hears it at once.
    expect((await live.next((m) => m.type === 'message')).message).toMatchObject({ callId, callerName: 'Erika', urgency: 'low' });
    await until(() => agentInfo(r.gateway, callId), (i) => i.message !== undefined, { what: 'message' });
    r.phone.remoteHangup();
    const all = await hooks.waitFor(3);
    const ended = all.find((h) => h.body.event === 'call.disconnected');
    expect(ended?.body).toMatchObject({ call: { id: callId, state: 'ended' }, message: { callId, callerName: 'Erika', reason: 'Invoice question', urgency: 'low', callbackNumber: '+4915100000077' } });
    expect(ended?.body.transcript).toEqual([{ role: 'caller', text: 'Erika here, about my invoice.', at: expect.any(String) }]);
    const ringing = all.find((h) => h.body.event === 'call.ringing');
    expect(ringing?.body).not.toHaveProperty('message');
    const active = all.find((h) => h.body.event === 'call.active');
    expect(active?.body).not.toHaveProperty('transcript');
  });
});
