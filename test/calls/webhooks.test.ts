import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import {
  acked,
  until,
  getCall,
  getDeliveries,
  getEvents,
  pairCredentials,
  phoneEvent,
  show,
  testScope,
  type Call,
  type Delivery,
  type ErrorBody,
  type ReceivedHook,
  type WebhookReceiver,
} from '../helpers/phones.js';

const t = testScope();

async function rotateSecret(g: TestGateway): Promise<string> {
  const res = await g.api<{ secret: string }>('POST', '/v1/settings/webhook-secret');
  expect(res.status, show(res)).toBe(200);
  expect(res.body.secret).toMatch(/^whsec_/);
  return res.body.secret;
}

async function setDefaultWebhook(g: TestGateway, url: string): Promise<void> {
  const res = await g.api('PUT', '/v1/settings', { webhookUrl: url });
  expect(res.status, show(res)).toBe(200);
}

function verify(secret: string, hook: ReceivedHook): unknown {
  return new Webhook(secret).verify(hook.raw, {
    'webhook-id': hook.headers['webhook-id']!,
    'webhook-timestamp': hook.headers['webhook-timestamp']!,
    'webhook-signature': hook.headers['webhook-signature']!,
  });
}

/** Deliveries of one call, oldest first. */
const deliveriesOf = async (g: TestGateway, callId: string): Promise<Delivery[]> => (await getDeliveries(g, `?callId=${callId}&limit=200`)).reverse();

describe('webhook bodies and signatures', () => {
  it('POSTs {event, eventId, occurredAt, receivedAt, payload, call} for every event, signed with Standard Webhooks', async () => {
    const g = await t.gateway();
    const secret = await rotateSecret(g);
    const hook = await t.receiver();
    await setDefaultWebhook(g, hook.url);
    const sim = await t.phone(g, { dial: { outcome: 'answer', ringMs: 10 } });

    const placed = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+15550100', metadata: { crm: 'abc' } });
    expect(placed.status, show(placed)).toBe(202);
    const callId = placed.body.call.id;
    await acked(sim, 'call.active');
    expect((await g.api('POST', `/v1/calls/${callId}/hangup`)).status).toBe(202);
    await hook.waitFor(3);

    const timeline = await getEvents(g, callId);
    expect(timeline.map((e) => e.event)).toEqual(['call.dialing', 'call.active', 'call.disconnected']);
    const statesAfter = ['dialing', 'active', 'ended'];
    hook.requests.forEach((req, i) => {
      const entry = timeline[i]!;
      expect(Object.keys(req.body).sort()).toEqual(['call', 'event', 'eventId', 'occurredAt', 'payload', 'receivedAt']);
      expect(req.body).toMatchObject({ event: entry.event, eventId: entry.eventId, occurredAt: entry.occurredAt, receivedAt: entry.receivedAt, payload: entry.payload });
      expect(req.body.call).toMatchObject({ id: callId, deviceId: sim.deviceId, direction: 'outgoing', remoteNumber: '+15550100', state: statesAfter[i], metadata: { crm: 'abc' } });
      expect(req.headers['content-type']).toMatch(/^application\/json/);
      expect(req.headers['webhook-id']).toBe(entry.eventId);
      const ts = Number(req.headers['webhook-timestamp']);
      expect(Number.isInteger(ts)).toBe(true);
      expect(Math.abs(ts - req.at / 1000)).toBeLessThan(30);
      expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(() => verify(secret, req)).not.toThrow();
    });
    expect(hook.requests[1]!.body.call.answeredAt).toEqual(expect.any(String));
    expect(hook.requests[2]!.body.call.endedAt).toEqual(expect.any(String));

    // The signature covers the exact bytes: a changed body or another secret fails.
    const first = hook.requests[0]!;
    expect(() => verify(secret, { ...first, raw: first.raw.replace('+15550100', '+15550101') })).toThrow();
    expect(() => verify(`whsec_${randomBytes(32).toString('base64')}`, first)).toThrow();
  });

  it('signs with WEBHOOK_SECRET from the environment', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const g = await t.gateway({ env: { WEBHOOK_SECRET: secret } });
    const hook = await t.receiver();
    await setDefaultWebhook(g, hook.url);
    const sim = await t.phone(g);
    await sim.ringIncoming('+4930100');
    const [req] = await hook.waitFor(1);
    expect(req!.body.event).toBe('call.ringing');
    expect(() => verify(secret, req!)).not.toThrow();
  });

  it('sends a call\'s events to its own webhookUrl, not the default', async () => {
    const g = await t.gateway();
    const own = await t.receiver('/own');
    const fallback = await t.receiver('/default');
    await setDefaultWebhook(g, fallback.url);
    const sim = await t.phone(g, { dial: { outcome: 'busy', ringMs: 10 } });

    const placed = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+15550200', webhookUrl: own.url });
    expect(placed.status, show(placed)).toBe(202);
    expect(placed.body.call.webhookUrl).toBe(own.url);
    const ownCall = placed.body.call.id;
    await own.waitFor(2);
    expect(own.requests.map((r) => [r.body.event, r.body.call.id])).toEqual([
      ['call.dialing', ownCall],
      ['call.disconnected', ownCall],
    ]);

    // A call without its own URL goes to the default.
    const other = await sim.ringIncoming('+4930200');
    const [fallbackReq] = await fallback.waitFor(1);
    expect(fallbackReq!.body.call.id).toBe(other);
    const rows = await until(() => deliveriesOf(g, ownCall), (d) => d.length === 2, { what: 'both rows of the call' });
    expect(rows.map((d) => [d.event, d.url, d.ok])).toEqual([
      ['call.dialing', own.url, true],
      ['call.disconnected', own.url, true],
    ]);
    expect(fallback.of(ownCall)).toEqual([]);
    expect(own.of(other)).toEqual([]);
  });

  it('sends nothing when no webhook URL is set', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930300');
    expect((await g.api('POST', `/v1/calls/${callId}/reject`)).status).toBe(202);
    await acked(sim, 'call.rejected');
    expect(await getDeliveries(g)).toEqual([]);
  });
});

describe('retries and the delivery log', () => {
  it('retries a failing receiver: two failures then success are three rows of GET /v1/webhook-deliveries', async () => {
    const g = await t.gateway();
    const secret = await rotateSecret(g);
    const hook = await t.receiver();
    hook.failNext(2, 503);
    await setDefaultWebhook(g, hook.url);
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930400');

    const reqs = await hook.waitFor(3);
    const eventId = sim.events[0]!.eventId;
    expect(reqs.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    expect(new Set(reqs.map((r) => r.raw)).size).toBe(1);
    for (const r of reqs) expect(() => verify(secret, r)).not.toThrow();
    // WEBHOOK_RETRY_DELAYS is 50ms,100ms,150ms in the tests.
    expect(reqs[1]!.at - reqs[0]!.at).toBeGreaterThanOrEqual(40);
    expect(reqs[2]!.at - reqs[1]!.at).toBeGreaterThanOrEqual(90);

    const rows = await until(() => deliveriesOf(g, callId), (d) => d.length === 3, { what: '3 delivery rows' });
    expect(rows.map((d) => [d.attempt, d.ok, d.event, d.eventId, d.url, d.callId])).toEqual([
      [1, false, 'call.ringing', eventId, hook.url, callId],
      [2, false, 'call.ringing', eventId, hook.url, callId],
      [3, true, 'call.ringing', eventId, hook.url, callId],
    ]);
    expect(rows[0]!.error).toContain('503');
    expect(rows[1]!.error).toContain('503');
    expect(rows[2]!.error).toBeUndefined();
    expect(rows.every((d) => Number.isInteger(d.id) && !Number.isNaN(Date.parse(d.at)))).toBe(true);
  });

  it('gives up after 4 attempts', async () => {
    const g = await t.gateway();
    const hook = await t.receiver();
    hook.failNext(1000, 500);
    await setDefaultWebhook(g, hook.url);
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930500');
    await hook.waitFor(4);
    // The 4th row is written together with the removal of the job: after it nothing is due.
    const rows = await until(() => deliveriesOf(g, callId), (d) => d.length >= 4, { what: '4 delivery rows' });
    expect(rows.map((d) => [d.attempt, d.ok])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, false],
    ]);
    const rest = await g.store.db.selectFrom('webhook_jobs').selectAll().execute();
    expect(rest).toEqual([]);
    expect(hook.requests).toHaveLength(4);
  });

  it('records network errors and timeouts as failed attempts', async () => {
    const g = await t.gateway({ timings: { webhookTimeoutMs: 200 } });
    const hook = await t.receiver();
    hook.hang = true;
    await setDefaultWebhook(g, hook.url);
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930550');
    await hook.waitFor(1);
    const [first] = await until(() => deliveriesOf(g, callId), (d) => d.length >= 1, { what: 'a timed out attempt' });
    expect(first).toMatchObject({ attempt: 1, ok: false, error: expect.stringMatching(/timeout|time/i) });
    hook.hang = false;
    await until(() => deliveriesOf(g, callId), (d) => d.some((x) => x.ok), { what: 'a later success' });
  });

  it('lists deliveries newest first, filters by callId and bounds limit to 1..200', async () => {
    const g = await t.gateway();
    const hook = await t.receiver();
    await setDefaultWebhook(g, hook.url);
    const sim = await t.phone(g);
    const a = await sim.ringIncoming('+4930600');
    expect((await g.api('POST', `/v1/calls/${a}/reject`)).status).toBe(202);
    await acked(sim, 'call.rejected');
    // Deliveries of different calls run side by side: let a's be recorded before b's exist.
    await until(() => getDeliveries(g), (d) => d.length === 2, { what: "a's 2 rows" });
    const b = await sim.ringIncoming('+4930601');
    await hook.waitFor(3);
    const all = await until(() => getDeliveries(g), (d) => d.length === 3, { what: '3 rows' });
    const ids = all.map((d) => d.id);
    expect([...ids].sort((x, y) => y - x)).toEqual(ids);
    expect(all.map((d) => [d.callId, d.event])).toEqual([
      [b, 'call.ringing'],
      [a, 'call.rejected'],
      [a, 'call.ringing'],
    ]);
    expect((await getDeliveries(g, `?callId=${a}`)).map((d) => d.event)).toEqual(['call.rejected', 'call.ringing']);
    expect((await getDeliveries(g, `?callId=${b}`)).map((d) => d.event)).toEqual(['call.ringing']);
    expect(await getDeliveries(g, '?callId=call_unknown')).toEqual([]);
    expect(await getDeliveries(g, '?limit=1')).toEqual([all[0]]);
    expect(await getDeliveries(g, '?limit=200')).toEqual(all);
    expect(await getDeliveries(g, `?callId=${a}&limit=1`)).toEqual([all[1]]);
    for (const limit of ['0', '201', '-1', 'x', '2.5']) {
      const res = await g.api<ErrorBody>('GET', `/v1/webhook-deliveries?limit=${limit}`);
      expect(res.status, `limit=${limit}: ${show(res)}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    const anon = await g.api('GET', '/v1/webhook-deliveries', undefined, { key: null });
    expect(anon.status).toBe(401);
  });

  it('keeps due retries across a restart of the gateway', async () => {
    const dataDir = t.tempDir();
    const hook = await t.receiver();
    const first = await t.gateway({ dataDir, env: { WEBHOOK_RETRY_DELAYS: '1s,50ms,50ms' } });
    const secret = await rotateSecret(first);
    await setDefaultWebhook(first, hook.url);
    const creds = await pairCredentials(first);
    const phone = await t.raw(first, creds.deviceToken);
    const ringing = phoneEvent('call.ringing', `native-${randomUUID()}`, { direction: 'incoming', remoteNumber: '+4930700' });
    hook.failNext(1, 500);
    const callId = String((await phone.event(ringing)).callId);
    await hook.waitFor(1);
    await until(() => deliveriesOf(first, callId), (d) => d.length === 1, { what: 'the failed first attempt' });
    await phone.close();
    await first.stop();
    const stoppedAt = Date.now();
    expect(hook.requests).toHaveLength(1);

    const second = await t.gateway({ dataDir });
    // The restarted dispatcher starts before the gateway listens and sends a retry that is due at
    // once: it may be here already, so it is awaited as the second request in all, not the next one.
    const retry = (await hook.waitFor(2, 5000))[1]!;
    expect(retry.at).toBeGreaterThanOrEqual(stoppedAt);
    expect(retry.headers['webhook-id']).toBe(ringing.eventId);
    expect(retry.raw).toBe(hook.requests[0]!.raw);
    expect(() => verify(secret, retry)).not.toThrow();
    const rows = await until(() => deliveriesOf(second, callId), (d) => d.length === 2, { what: 'both attempts in the log' });
    expect(rows.map((d) => [d.attempt, d.ok])).toEqual([
      [1, false],
      [2, true],
    ]);
  });
});

describe('ordering and independence', () => {
  it('sends the first attempts of one call in the order of its timeline', async () => {
    const g = await t.gateway();
    const hook = await t.receiver();
    // The first event fails once: its retry must not hold the others back, nor overtake them.
    hook.failNext(1, 500);
    await setDefaultWebhook(g, hook.url);
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const n = `native-${randomUUID()}`;
    const burst = [
      phoneEvent('call.ringing', n, { direction: 'incoming', remoteNumber: '+4930800' }),
      phoneEvent('call.active', n),
      phoneEvent('call.audio_processing', n),
      phoneEvent('call.holding', n),
      phoneEvent('call.active', n),
      phoneEvent('call.holding', n),
      phoneEvent('call.active', n),
      phoneEvent('call.disconnecting', n),
      phoneEvent('call.disconnected', n, { payload: { cause: 'remote' } }),
    ];
    for (const e of burst) phone.send(e);
    for (const e of burst) await phone.ack(e.eventId);
    const callId = String(phone.acksOf(burst[0]!.eventId)[0]!.callId);
    await hook.waitFor(burst.length + 1);

    const firstSeen: string[] = [];
    for (const r of hook.requests) if (!firstSeen.includes(r.headers['webhook-id']!)) firstSeen.push(r.headers['webhook-id']!);
    const timeline = (await getEvents(g, callId)).map((e) => e.eventId);
    expect(timeline).toEqual(burst.map((e) => e.eventId));
    expect(firstSeen).toEqual(timeline);
  });

  it('a receiver that hangs delays neither the REST response nor the phone\'s event.ack', async () => {
    const g = await t.gateway({ timings: { webhookTimeoutMs: 8000 } });
    const hook: WebhookReceiver = await t.receiver();
    hook.hang = true;
    await setDefaultWebhook(g, hook.url);
    const sim = await t.phone(g);

    let started = Date.now();
    const callId = await sim.ringIncoming('+4930900');
    expect(Date.now() - started).toBeLessThan(1500);
    await hook.waitFor(1);

    started = Date.now();
    const answer = await g.api('POST', `/v1/calls/${callId}/answer`);
    expect(answer.status, show(answer)).toBe(202);
    await acked(sim, 'call.active');
    expect(Date.now() - started).toBeLessThan(1500);
    expect((await getCall(g, callId)).state).toBe('active');

    started = Date.now();
    const list = await g.api('GET', '/v1/calls');
    expect(list.status).toBe(200);
    const hangup = await g.api('POST', `/v1/calls/${callId}/hangup`);
    expect(hangup.status, show(hangup)).toBe(202);
    await acked(sim, 'call.disconnected');
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
