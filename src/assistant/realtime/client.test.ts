import type { EventEmitter } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeRealtime, type FakeRealtime } from '../../../test/fakes/realtime-server.js';
import { Recorded, until } from '../../../test/helpers/waits.js';
import { RealtimeClient, type RealtimeClientEvents, type RealtimeFunctionCall } from './client.js';
import { RealtimeError } from './errors.js';
import { buildSessionUpdate } from './session.js';

const API_KEY = 'sk-test-0123456789abcdefSECRET';
const sessionUpdate = buildSessionUpdate({ ownerName: 'Dana Weber', about: 'Dana fixes roofs.', voice: 'coral' });

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()?.();
});

async function fake(options: Parameters<typeof startFakeRealtime>[0] = {}): Promise<FakeRealtime> {
  const f = await startFakeRealtime(options);
  cleanup.push(() => f.close());
  return f;
}

async function connected(f: FakeRealtime, extra: { url?: string } = {}): Promise<RealtimeClient> {
  const client = await RealtimeClient.connect({ url: extra.url ?? f.url, model: 'gpt-realtime', apiKey: API_KEY, sessionUpdate });
  cleanup.push(() => client.close());
  return client;
}

/** Waits for the client's next event of that name; unlike events.once it does not listen for 'error' meanwhile. */
function next<K extends keyof RealtimeClientEvents>(
  client: RealtimeClient,
  event: K,
  timeoutMs = 2_000,
): Promise<RealtimeClientEvents[K]> {
  const emitter: EventEmitter = client;
  const heard = new Recorded<RealtimeClientEvents[K]>(`realtime client '${event}'`);
  const listener = (...args: unknown[]): void => heard.add(args as RealtimeClientEvents[K]);
  emitter.on(event, listener);
  return heard.next(undefined, { timeoutMs, what: `'${event}'` }).finally(() => emitter.off(event, listener));
}

async function rejection(promise: Promise<unknown>): Promise<RealtimeError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(RealtimeError);
    return err as RealtimeError;
  }
  throw new Error('expected a rejection');
}

describe('RealtimeClient.connect', () => {
  it('opens the GA endpoint with the model, bearer key and no beta header, then sends session.update', async () => {
    const f = await fake();
    const client = await connected(f, { url: `${f.url}?trace=1` });
    await next(client, 'sessionUpdated');

    const [request] = f.requests;
    const url = new URL(request?.url ?? '', 'http://x');
    expect(url.pathname).toBe('/v1/realtime');
    expect(url.searchParams.get('model')).toBe('gpt-realtime');
    expect(url.searchParams.get('trace')).toBe('1');
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers).not.toHaveProperty('openai-beta');

    const first = f.received[0]?.[0];
    expect(first).toEqual(JSON.parse(JSON.stringify(sessionUpdate)));
    expect(first).toMatchObject({
      type: 'session.update',
      session: {
        type: 'realtime',
        output_modalities: ['audio'],
        audio: {
          input: { format: { type: 'audio/pcm', rate: 24000 }, turn_detection: { type: 'server_vad' } },
          output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'coral' },
        },
      },
    });
    const session = (first as unknown as { session: { instructions: string; tools: Array<{ name: string }> } }).session;
    expect(session.instructions).toContain('Dana Weber');
    expect(session.instructions).toContain('Dana fixes roofs.');
    expect(session.tools.map((t) => t.name)).toEqual(['record_message', 'end_call']);
  });

  it('rejects a refused key with a fatal error that does not contain the key', async () => {
    const f = await fake({ requireKey: 'sk-the-right-one' });
    const err = await rejection(RealtimeClient.connect({ url: f.url, model: 'gpt-realtime', apiKey: API_KEY, sessionUpdate }));
    expect(err.code).toBe('invalid_api_key');
    expect(err.fatal).toBe(true);
    expect(err.status).toBe(401);
    expect(err.message).toContain('401');
    expect(err.message).not.toContain(API_KEY);
    expect(err.message).not.toContain('SECRET');
    expect(err.stack ?? '').not.toContain(API_KEY);
    expect(f.requests.map((r) => r.status)).toEqual([401]);
    expect(f.connections).toHaveLength(0);
  });

  it('maps a refused upgrade without an error code from its status', async () => {
    const f = await fake();
    const err = await rejection(
      RealtimeClient.connect({ url: f.url.replace('/v1/realtime', '/v1/nowhere'), model: 'm', apiKey: API_KEY, sessionUpdate }),
    );
    expect(err).toMatchObject({ code: 'model_not_found', status: 404, fatal: true });
  });

  it('times out when the server accepts TCP but never answers the upgrade', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((s) => sockets.add(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanup.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          silent.close(() => resolve());
        }),
    );
    const { port } = silent.address() as AddressInfo;
    const started = Date.now();
    const err = await rejection(
      RealtimeClient.connect({ url: `ws://127.0.0.1:${port}/v1/realtime`, apiKey: API_KEY, sessionUpdate, connectTimeoutMs: 150 }),
    );
    expect(err).toMatchObject({ code: 'connect_timeout', fatal: false });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('reports a network error as retryable', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const err = await rejection(RealtimeClient.connect({ url: `ws://127.0.0.1:${port}/v1/realtime`, apiKey: API_KEY, sessionUpdate }));
    expect(err).toMatchObject({ code: 'network_error', fatal: false });
    expect(err.message).not.toContain(API_KEY);
  });

  it('stops when aborted, and refuses an invalid URL', async () => {
    const f = await fake();
    const controller = new AbortController();
    const pending = RealtimeClient.connect({ url: f.url, apiKey: API_KEY, sessionUpdate, signal: controller.signal });
    controller.abort();
    expect(await rejection(pending)).toMatchObject({ code: 'aborted', fatal: true });
    expect(await rejection(RealtimeClient.connect({ url: 'not a url', apiKey: API_KEY, sessionUpdate }))).toMatchObject({
      code: 'invalid_url',
      fatal: true,
    });
  });
});

describe('RealtimeClient session', () => {
  it('streams caller audio as base64 appends and decodes model audio', async () => {
    const f = await fake();
    const client = await connected(f);
    const pcm = Buffer.from(Int16Array.from({ length: 480 }, (_, i) => (i * 97) % 30000 - 15000).buffer);

    expect(client.appendAudio(pcm)).toBe(true);
    const append = await f.waitForEvent('input_audio_buffer.append');
    expect(Object.keys(append).sort()).toEqual(['audio', 'type']);
    expect(Buffer.from(String(append.audio), 'base64').equals(pcm)).toBe(true);

    const reply = Buffer.from([1, 0, 2, 0, 255, 127, 0, 128]);
    const audio = next(client, 'audio');
    f.sendAudio(reply, 'item_a', { contentIndex: 0 });
    const [chunk] = await audio;
    expect(chunk.itemId).toBe('item_a');
    expect(chunk.contentIndex).toBe(0);
    expect(chunk.pcm.equals(reply)).toBe(true);
  });

  it('emits speech start and both transcripts', async () => {
    const f = await fake();
    const client = await connected(f);

    const speech = next(client, 'speechStarted');
    f.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 1540, item_id: 'item_u1' });
    expect(await speech).toEqual([{ audioStartMs: 1540, itemId: 'item_u1' }]);

    const caller = next(client, 'callerTranscript');
    f.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_u1', content_index: 0, transcript: ' Hallo, hier ist Max. ' });
    expect(await caller).toEqual(['Hallo, hier ist Max.']);

    const agent = next(client, 'agentTranscript');
    f.send({
      type: 'response.output_audio_transcript.done',
      response_id: 'resp_1',
      item_id: 'item_a1',
      output_index: 0,
      content_index: 0,
      transcript: 'Guten Tag, Sie sind bei Dana Weber.',
    });
    expect(await agent).toEqual(['Guten Tag, Sie sind bei Dana Weber.']);
  });

  it('emits each function call once even though several events carry it', async () => {
    const f = await fake();
    const client = await connected(f);
    const calls: RealtimeFunctionCall[] = [];
    client.on('functionCall', (call) => calls.push(call));

    const done = next(client, 'responseDone');
    f.sendFunctionCall({ callId: 'call_1', name: 'record_message', arguments: { callerName: 'Max', reason: 'Roof leak', urgency: 'high' } });
    f.send({
      type: 'response.output_item.done',
      response_id: 'resp_fake_fc',
      output_index: 0,
      item: { type: 'function_call', call_id: 'call_1', name: 'record_message', arguments: '{}' },
    });
    expect(await done).toEqual([{ responseId: 'resp_fake_fc', status: 'completed' }]);

    const done2 = next(client, 'responseDone');
    f.sendFunctionCall({ callId: 'call_2', name: 'end_call', arguments: 'not json', responseId: 'resp_2' });
    await done2;

    expect(calls).toEqual([
      { callId: 'call_1', name: 'record_message', arguments: { callerName: 'Max', reason: 'Roof leak', urgency: 'high' } },
      { callId: 'call_2', name: 'end_call', arguments: 'not json' },
    ]);
  });

  it('takes a function call from response.done when the arguments event carries no name', async () => {
    const f = await fake();
    const client = await connected(f);
    const calls: RealtimeFunctionCall[] = [];
    client.on('functionCall', (call) => calls.push(call));
    const done = next(client, 'responseDone');
    f.send({ type: 'response.function_call_arguments.done', call_id: 'call_9', arguments: '{}' });
    f.send({
      type: 'response.done',
      response: { id: 'r9', status: 'completed', output: [{ type: 'function_call', call_id: 'call_9', name: 'end_call', arguments: '{}' }] },
    });
    await done;
    expect(calls).toEqual([{ callId: 'call_9', name: 'end_call', arguments: {} }]);
  });

  it('sends function output, response.create and truncate in the GA shapes', async () => {
    const f = await fake();
    const client = await connected(f);

    expect(client.sendFunctionOutput('call_1', { ok: true })).toBe(true);
    expect(client.createResponse()).toBe(true);
    expect(client.truncate('item_a', 0, 1234.6)).toBe(true);
    expect(client.createResponse('Greet the caller.')).toBe(true);

    expect(await f.waitForEvent('conversation.item.create')).toEqual({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: 'call_1', output: '{"ok":true}' },
    });
    expect(await f.waitForEvent('response.create')).toEqual({ type: 'response.create' });
    expect(await f.waitForEvent('conversation.item.truncate')).toEqual({
      type: 'conversation.item.truncate',
      item_id: 'item_a',
      content_index: 0,
      audio_end_ms: 1235,
    });
    expect(await f.waitForEvent('response.create')).toEqual({ type: 'response.create', response: { instructions: 'Greet the caller.' } });
    expect(f.received[0]?.map((e) => e.type)).toEqual([
      'session.update',
      'conversation.item.create',
      'response.create',
      'conversation.item.truncate',
      'response.create',
    ]);
  });

  it('turns server error events into RealtimeErrors, fatal only for the fatal codes', async () => {
    const f = await fake();
    const client = await connected(f);

    const first = next(client, 'error');
    f.send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_value', message: 'Bad item id', param: 'item_id', event_id: null } });
    const [soft] = await first;
    expect(soft).toBeInstanceOf(RealtimeError);
    expect(soft).toMatchObject({ code: 'invalid_value', fatal: false, message: 'Bad item id' });

    const second = next(client, 'error');
    f.send({ type: 'error', error: { type: 'invalid_request_error', code: 'session_expired', message: 'Your session hit the maximum duration of 60 minutes.' } });
    expect((await second)[0]).toMatchObject({ code: 'session_expired', fatal: true });

    const third = next(client, 'error');
    f.send({ type: 'error', error: { type: 'server_error', code: null, message: `leaked ${API_KEY}` } });
    const [scrubbed] = await third;
    expect(scrubbed.code).toBe('server_error');
    expect(scrubbed.message).not.toContain(API_KEY);
  });

  it('does not throw on error events without a listener, unknown events or malformed frames', async () => {
    const f = await fake();
    const client = await connected(f);
    f.send({ type: 'error', error: { type: 'server_error', code: null, message: 'nobody listens' } });
    f.send({ type: 'rate_limits.updated', rate_limits: [] });
    f.send({ type: 'response.output_audio.delta', item_id: 42 });
    f.connections[0]?.socket.send('{not json');
    const speech = next(client, 'speechStarted');
    f.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: 0, item_id: 'item_x' });
    expect(await speech).toEqual([{ audioStartMs: 0, itemId: 'item_x' }]);
  });

  it('gives up on a model that stops reading the call audio: a fatal too_slow error, the socket ended, nothing more queued', async () => {
    const f = await fake();
    const client = await connected(f);
    await f.waitForConnection();
    f.connections[0]!.socket.pause();
    const errored = next(client, 'error', 30_000);
    const closed = next(client, 'close', 30_000);
    // 20 ms of 24 kHz audio per call, as the bridge appends it; far more than the kernel's buffers hold.
    const chunk = Buffer.alloc(960, 1);
    let appended = 0;
    while (appended < 20_000 && client.appendAudio(chunk)) appended += 1;
    expect(appended).toBeLessThan(20_000);
    const [err] = await errored;
    expect(err.code).toBe('too_slow');
    expect(err.fatal).toBe(true);
    expect(err.message).toMatch(/fell more than 1 s behind/);
    await closed;
    expect(client.appendAudio(chunk)).toBe(false);
  }, 60_000);

  it('pings the model; one that stops answering is given up: a fatal unresponsive error, then the socket closes', async () => {
    const f = await fake();
    const ping = { pingIntervalMs: 40, pongTimeoutMs: 2000 };
    const client = await RealtimeClient.connect({ url: f.url, apiKey: API_KEY, sessionUpdate, ping });
    cleanup.push(() => client.close());
    const errors: RealtimeError[] = [];
    client.on('error', (err) => errors.push(err));
    // Answered pings keep it open, however many.
    await until(async () => f.pings, (n) => n >= 4, { what: 'four pings answered' });
    expect(errors).toEqual([]);
    expect(client.isOpen).toBe(true);

    const closed = next(client, 'close', 10_000);
    f.stopAnsweringPings();
    await closed;
    expect(errors.map((e) => [e.code, e.fatal])).toEqual([['unresponsive', true]]);
    expect(errors[0]!.message).toMatch(/did not answer a ping within 2000 ms/);
    expect(client.appendAudio(Buffer.alloc(960))).toBe(false);
  });

  it('emits close when the server closes, and stops sending afterwards', async () => {
    const f = await fake();
    const client = await connected(f);
    const closed = next(client, 'close');
    f.connections[0]?.close(4000, 'session over');
    expect(await closed).toEqual([{ code: 4000, reason: 'session over' }]);
    expect(client.isOpen).toBe(false);
    expect(client.appendAudio(Buffer.alloc(960))).toBe(false);
    expect(client.createResponse()).toBe(false);
    await client.close();
  });

  it('closes from our side and on a late abort', async () => {
    const f = await fake();
    const client = await connected(f);
    const closed = next(client, 'close');
    await client.close();
    expect((await closed)[0].code).toBe(1000);

    const controller = new AbortController();
    const second = await RealtimeClient.connect({ url: f.url, apiKey: API_KEY, sessionUpdate, signal: controller.signal });
    const closed2 = next(second, 'close');
    controller.abort();
    await closed2;
    expect(second.isOpen).toBe(false);
  });
});
