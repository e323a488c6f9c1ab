import { describe, expect, it } from 'vitest';
import { FRAME_BYTES } from '../../src/audio/index.js';
import { agentInfo, rig, takenCall } from '../assistant/support.js';
import { TEST_API_KEY, type TestGateway } from '../helpers/gateway.js';
import { scrape, scrapeUntil, type Metrics } from '../helpers/metrics.js';
import { callInState, pairCredentials, phoneEvent, show, testScope, type ErrorBody, type RawPhone, type WebhookReceiver } from '../helpers/phones.js';
import { agent, closedPort, openMedia, placeCall, rawPhoneCall, TONE, type PeerSocket } from '../streams/helpers.js';

const t = testScope();

const TOKEN = 'scraper-token-0123456789abcdef';
const CALLS = 'voice_gateway_calls';
const RECEIVED = 'voice_gateway_phone_audio_frames_received_total';
const SENT = 'voice_gateway_phone_audio_frames_sent_total';
const DROPPED = 'voice_gateway_audio_frames_dropped_total';
const ATTEMPTS = 'voice_gateway_webhook_attempts_total';
const QUEUE = 'voice_gateway_webhook_queue_jobs';
const CONNECTED = 'voice_gateway_phones_connected';
const LATENCY_COUNT = 'voice_gateway_phone_latency_seconds_count';

const OUR_METRICS = [
  'voice_gateway_agent_streams',
  'voice_gateway_assistant_sessions',
  'voice_gateway_audio_frames_dropped_total',
  'voice_gateway_calls',
  'voice_gateway_phone_audio_frames_received_total',
  'voice_gateway_phone_audio_frames_sent_total',
  'voice_gateway_phone_latency_seconds',
  'voice_gateway_phones_connected',
  'voice_gateway_webhook_attempts_total',
  'voice_gateway_webhook_queue_jobs',
];

const callsIn = (m: Metrics, state: string): number => m.value(CALLS, { state });
const attempts = (m: Metrics, outcome: string): number => m.value(ATTEMPTS, { outcome });
const dropped = (m: Metrics, reason: string): number => m.value(DROPPED, { reason });
const queue = (m: Metrics) => ({ due: m.value(QUEUE, { state: 'due' }), scheduled: m.value(QUEUE, { state: 'scheduled' }), inFlight: m.value(QUEUE, { state: 'in_flight' }) });

async function mediaSocket(g: TestGateway, callId: string): Promise<PeerSocket> {
  const outcome = await openMedia(g, callId, { 'x-api-key': TEST_API_KEY });
  if (!outcome.ok) throw new Error(`media socket refused: ${outcome.status} ${JSON.stringify(outcome.body)}`);
  t.defer(() => outcome.peer.close());
  await outcome.peer.message((m) => m.type === 'start');
  return outcome.peer;
}

/** An incoming call the raw phone rings (one webhook to the default URL); resolves with its id. */
async function ring(phone: RawPhone, native: string): Promise<string> {
  const ack = await phone.event(phoneEvent('call.ringing', native, { direction: 'incoming', remoteNumber: '+4930551' }));
  return String(ack.callId);
}

async function setWebhookUrl(g: TestGateway, webhookUrl: string): Promise<void> {
  const res = await g.api('PUT', '/v1/settings', { webhookUrl });
  if (res.status !== 200) throw new Error(`PUT /v1/settings: ${show(res)}`);
}

describe('GET /metrics', () => {
  it('takes an API key or the METRICS_TOKEN and refuses anything else with 401 in the error shape; the token opens nothing else', async () => {
    const g = await t.gateway({ env: { METRICS_TOKEN: TOKEN }, captureLogs: true });
    const get = (headers: Record<string, string>) => g.api<ErrorBody>('GET', '/metrics', undefined, { key: null, headers });

    const refused: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: `Bearer ${TOKEN}x` }, { 'x-api-key': 'gw_not_a_key_0000000000000' }];
    for (const headers of refused) {
      const res = await get(headers);
      expect(res.status, show(res)).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
      expect(res.body.error.message).toBeTruthy();
    }

    const made = await g.api<{ apiKey: { id: string; key: string } }>('POST', '/v1/api-keys', { name: 'prometheus' });
    expect(made.status, show(made)).toBe(201);
    const { id, key } = made.body.apiKey;
    const accepted: Array<Record<string, string>> = [{ authorization: `Bearer ${TOKEN}` }, { authorization: `Bearer ${TEST_API_KEY}` }, { 'x-api-key': TEST_API_KEY }, { authorization: `Bearer ${key}` }];
    for (const headers of accepted) {
      const res = await get(headers);
      expect(res.status, show(res)).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(res.text).toContain('# TYPE voice_gateway_calls gauge');
    }
    expect((await g.api('DELETE', `/v1/api-keys/${id}`)).status).toBe(204);
    expect((await get({ authorization: `Bearer ${key}` })).status).toBe(401);

    // A scraper's token is no API key.
    for (const path of ['/v1/calls', '/v1/devices', '/v1/settings', '/v1/api-keys']) {
      const res = await g.api<ErrorBody>('GET', path, undefined, { key: TOKEN });
      expect(res.status, `${path}: ${show(res)}`).toBe(401);
    }
    expect(g.logs.length).toBeGreaterThan(0);
    expect(g.logs.join('\n')).not.toContain(TOKEN);

    // Without METRICS_TOKEN no token but an API key opens it.
    const plain = await t.gateway();
    expect((await plain.api('GET', '/metrics', undefined, { key: TOKEN })).status).toBe(401);
    expect((await plain.api('GET', '/metrics')).status).toBe(200);
  });

  it('is the Prometheus text format: HELP and TYPE for each metric, counters end in _total, process and event-loop metrics included', async () => {
    const g = await t.gateway();
    const m = await scrape(g);
    expect([...m.types.keys()].filter((name) => name.startsWith('voice_gateway_')).sort()).toEqual(OUR_METRICS);
    for (const [name, type] of m.types) {
      expect(m.help.get(name), `HELP of ${name}`).toBeTruthy();
      // prom-client's own gauges (nodejs_active_handles_total …) keep the names dashboards know.
      if (!name.startsWith('voice_gateway_')) continue;
      if (type === 'counter') expect(name).toMatch(/_total$/);
      else expect(name).not.toMatch(/_total$/);
    }
    expect(m.types.get('voice_gateway_phone_latency_seconds')).toBe('histogram');
    expect(m.value('voice_gateway_phone_latency_seconds_bucket', { le: '+Inf' })).toBe(0);
    expect(m.types.get('nodejs_eventloop_lag_p99_seconds')).toBe('gauge');
    expect(m.value('nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(m.types.get('process_cpu_seconds_total')).toBe('counter');
    expect(m.value('process_resident_memory_bytes')).toBeGreaterThan(0);
    // Every state and reason is present from the start, at 0.
    for (const state of ['queued', 'dialing', 'ringing', 'active', 'held', 'ended', 'rejected', 'failed']) expect(callsIn(m, state)).toBe(0);
    for (const reason of ['wrong_size', 'no_call', 'queue_full', 'consumer_gone', 'phone_gone']) expect(dropped(m, reason)).toBe(0);
    for (const outcome of ['ok', 'http_error', 'timeout', 'refused', 'network_error']) expect(attempts(m, outcome)).toBe(0);
  });

  it('follows a simulated phone: connected and its latency, a call through its states, frames both ways, agent stream, webhooks, then the phone leaves', async () => {
    const receiver = await t.receiver();
    const g = await t.gateway({ timings: { pingIntervalMs: 100 } });
    const other = await t.gateway();
    expect((await scrape(g)).value(CONNECTED)).toBe(0);

    const phone = await t.phone(g, { audio: TONE, dial: { outcome: 'answer', ringMs: 20 } });
    let m = await scrapeUntil(g, (s) => s.value(LATENCY_COUNT) >= 1, 'a pong observed');
    expect(m.value(CONNECTED)).toBe(1);
    expect(m.value('voice_gateway_phone_latency_seconds_sum')).toBeGreaterThan(0);
    // A registry per gateway: the other one in this process saw nothing.
    expect((await scrape(other)).value(CONNECTED)).toBe(0);

    const a = await agent(t);
    const { call } = await placeCall(g, phone, { webhookUrl: receiver.url, stream: { url: a.url } });
    const conn = await a.connection();
    await conn.message((msg) => msg.type === 'start');
    await callInState(g, call.id, 'active');
    await conn.frames(10);
    m = await scrape(g);
    expect(callsIn(m, 'active')).toBe(1);
    expect(m.value('voice_gateway_agent_streams', { status: 'live' })).toBe(1);
    expect(m.value(RECEIVED)).toBeGreaterThanOrEqual(10);

    // What the agent says reaches the phone: exactly these frames.
    conn.sendBinary(Buffer.alloc(10 * FRAME_BYTES, 7));
    m = await scrapeUntil(g, (s) => s.value(SENT) === 10, 'ten frames sent to the phone');
    // Counted as they are written: the last may still be on its way to the phone.
    await phone.waitFor((s) => s.received.frames >= 10, 5000);

    expect((await g.api('POST', `/v1/calls/${call.id}/hangup`)).status).toBe(202);
    await callInState(g, call.id, 'ended');
    const heard = conn.binary.items.length;
    // The gauges follow the change the store committed; on PostgreSQL a request may see the commit first.
    m = await scrapeUntil(g, (s) => callsIn(s, 'ended') === 1 && s.value('voice_gateway_agent_streams', { status: 'live' }) === 0, 'the ended call counted');
    expect(callsIn(m, 'active')).toBe(0);
    // The call's frames stay counted after its audio ended.
    expect(m.value(RECEIVED)).toBeGreaterThanOrEqual(heard);
    expect(m.value(RECEIVED)).toBeLessThanOrEqual(phone.framesSent);
    expect(m.value(SENT)).toBe(10);

    await receiver.waitUntil((r) => r.body.event === 'call.disconnected');
    m = await scrapeUntil(g, (s) => attempts(s, 'ok') === receiver.requests.length && queue(s).inFlight === 0, 'every webhook recorded');
    expect(attempts(m, 'ok')).toBeGreaterThanOrEqual(3);
    expect(queue(m)).toEqual({ due: 0, scheduled: 0, inFlight: 0 });

    await phone.stop();
    await scrapeUntil(g, (s) => s.value(CONNECTED) === 0, 'the phone gone');
  });

  it('counts webhook attempts by outcome (ok, HTTP error, timeout, refused, network error) and shows the queue', async () => {
    const receiver: WebhookReceiver = await t.receiver();
    const g = await t.gateway({ timings: { webhookTimeoutMs: 3000 } });
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const settled = (what: string, done: (m: Metrics) => boolean) =>
      scrapeUntil(g, (s) => done(s) && queue(s).due + queue(s).scheduled + queue(s).inFlight === 0, what, 10_000);

    // A receiver that fails once, then takes the retry.
    await setWebhookUrl(g, receiver.url);
    receiver.failNext(1, 503);
    await ring(phone, 'native-http-error');
    let m = await settled('a 503 then a delivery', (s) => attempts(s, 'ok') === 1);
    expect(attempts(m, 'http_error')).toBe(1);

    // Refused by the outbound rules (the cloud metadata address), every attempt.
    await setWebhookUrl(g, 'http://169.254.169.254/hook');
    await ring(phone, 'native-refused');
    m = await settled('four refused attempts', (s) => attempts(s, 'refused') === 4);

    // Nothing listens: the connection is refused.
    await setWebhookUrl(g, `http://127.0.0.1:${await closedPort()}/hook`);
    await ring(phone, 'native-network');
    m = await settled('four network errors', (s) => attempts(s, 'network_error') === 4);

    // A receiver that does not answer: the queue holds the attempt in flight and the call's later
    // events behind it; the attempt times out and the retry is delivered.
    await setWebhookUrl(g, receiver.url);
    receiver.hang = true;
    const native = 'native-timeout';
    const callId = await ring(phone, native);
    await receiver.waitUntil((r) => r.body.call?.id === callId);
    await phone.event(phoneEvent('call.active', native, { callId }));
    await phone.event(phoneEvent('call.disconnected', native, { callId, payload: { cause: 'remote' } }));
    m = await scrape(g);
    expect(queue(m)).toEqual({ due: 2, scheduled: 0, inFlight: 1 });
    receiver.hang = false;
    m = await settled('a timeout, then every event delivered', (s) => attempts(s, 'ok') === 4);
    expect(attempts(m, 'timeout')).toBe(1);
    expect({ http: attempts(m, 'http_error'), refused: attempts(m, 'refused'), network: attempts(m, 'network_error') }).toEqual({ http: 1, refused: 4, network: 4 });
  });

  it('counts dropped audio by reason: wrong size and no call from phones, queue full, audio before the answer, a phone gone', async () => {
    const g = await t.gateway();
    const { phone, callId } = await rawPhoneCall(t, g);

    // A phone with no call yet: frames of the wrong size, and frames no call takes.
    const idle = await t.raw(g, (await pairCredentials(g, 'Idle phone')).deviceToken);
    for (let i = 0; i < 3; i++) idle.ws.send(Buffer.alloc(100), { binary: true });
    for (let i = 0; i < 5; i++) idle.ws.send(Buffer.alloc(FRAME_BYTES), { binary: true });
    let m = await scrapeUntil(g, (s) => dropped(s, 'wrong_size') === 3 && dropped(s, 'no_call') === 5, 'wrong-size and call-less frames');

    // A media client that speaks into a call still ringing: nothing plays it yet.
    const ringing = await ring(idle, 'native-ringing');
    const early = await mediaSocket(g, ringing);
    early.sendBinary(Buffer.alloc(10 * FRAME_BYTES, 1));
    m = await scrapeUntil(g, (s) => dropped(s, 'no_call') === 15, 'audio before the answer');

    // Two minutes fill a source's play-out queue; a further 30 s chunk is dropped whole.
    const media = await mediaSocket(g, callId);
    const thirtySeconds = Buffer.alloc(30 * 50 * FRAME_BYTES, 2);
    for (let i = 0; i < 5; i++) media.sendBinary(thirtySeconds);
    m = await scrapeUntil(g, (s) => dropped(s, 'queue_full') === 1500, 'the overflow');
    expect(m.value(SENT)).toBeGreaterThan(0);

    // The phone drops off with two minutes queued for it: what the clock has for it is dropped.
    await phone.terminate();
    m = await scrapeUntil(g, (s) => dropped(s, 'phone_gone') > 0 && s.value(CONNECTED) === 1, 'frames for a phone gone');
    expect(callsIn(m, 'active')).toBe(1);
  });

  it('counts calls by state from the store at start, then follows them without a query per scrape', async () => {
    const dataDir = t.tempDir();
    const first = await t.gateway({ dataDir });
    const phone = await t.phone(first, { dial: { outcome: 'busy', ringMs: 10 } });
    const { call } = await placeCall(first, phone);
    await callInState(first, call.id, 'ended');
    const ringing = await phone.ringIncoming('+4930552');
    await callInState(first, ringing, 'ringing');
    expect(callsIn(await scrape(first), 'ended')).toBe(1);
    await phone.stop();
    await first.stop();

    const again = await t.gateway({ dataDir });
    const m = await scrape(again);
    expect({ ended: callsIn(m, 'ended'), ringing: callsIn(m, 'ringing'), active: callsIn(m, 'active') }).toEqual({ ended: 1, ringing: 1, active: 0 });
  });

  it('shows the assistant sessions of calls in progress', async () => {
    const r = await rig(t);
    const callId = await takenCall(r);
    expect((await agentInfo(r.gateway, callId)).status).toBe('live');
    expect((await scrape(r.gateway)).value('voice_gateway_assistant_sessions', { status: 'live' })).toBe(1);
    r.phone.remoteHangup();
    await callInState(r.gateway, callId, 'ended');
    await scrapeUntil(r.gateway, (s) => s.value('voice_gateway_assistant_sessions', { status: 'live' }) === 0, 'no live assistant session');
  });
});
