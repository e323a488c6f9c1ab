import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { callInState, until, show, testScope, type Delivery } from '../helpers/phones.js';
import type { WebhookEventDelivery } from '../../src/webhooks/index.js';

const t = testScope();

interface Page {
  deliveries: Delivery[];
  events: WebhookEventDelivery[];
  nextBefore: number | null;
}

async function log(g: TestGateway, query = ''): Promise<Page> {
  const res = await g.api<Page>('GET', `/v1/webhook-deliveries${query}`);
  expect(res.status, show(res)).toBe(200);
  return res.body;
}

const ringingOf = (page: Page, callId: string): WebhookEventDelivery | undefined => page.events.find((e) => e.callId === callId && e.event === 'call.ringing');

/** A loopback port nothing listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('webhook failures that say why (issue 26, point 3)', () => {
  it("keeps each attempt's answer, duration and kind, says when the next is due, and groups the attempts per event", async () => {
    const rx = await t.receiver();
    const g = await t.gateway({ env: { WEBHOOK_URL: rx.url, WEBHOOK_RETRY_DELAYS: '60s,60s,60s' } });
    const sim = await t.phone(g);
    rx.failNext(1, 503);
    rx.failAnswer = () => '{"error":"database is down"}';
    const callId = await sim.ringIncoming('+4930111');
    await rx.waitFor(1);

    const page = await until(() => log(g, `?callId=${callId}`), (p) => ringingOf(p, callId)?.attempts.length === 1, { what: 'the first attempt' });
    const ringing = ringingOf(page, callId)!;
    const [first] = ringing.attempts;
    expect(first).toMatchObject({ ok: false, attempt: 1, statusCode: 503, errorKind: 'http_error', error: 'HTTP 503', answer: '{"error":"database is down"}', gaveUp: false });
    expect(first!.durationMs).toBeGreaterThanOrEqual(0);
    // The next attempt is due a minute after the first: on the attempt and on its event.
    expect(Date.parse(first!.nextAttemptAt!) - Date.parse(first!.at)).toBeGreaterThanOrEqual(59_000);
    expect(ringing).toMatchObject({ state: 'retrying', nextAttempt: 2, nextAttemptAt: first!.nextAttemptAt, gaveUp: false, maxAttempts: 4, lastAttemptId: first!.id });
    // The per-attempt rows the spec defines are still there.
    expect(page.deliveries.find((d) => d.id === first!.id)).toEqual(first);
    sim.remoteHangup();
    await callInState(g, callId, 'ended');
  });

  it('gives up after 4 of 4 without keeping a signature the receiver echoed, and one Retry sends the event again', async () => {
    const rx = await t.receiver();
    const g = await t.gateway({ env: { WEBHOOK_URL: rx.url, WEBHOOK_RETRY_DELAYS: '20ms,20ms,20ms' } });
    const sim = await t.phone(g);
    rx.failNext(1000, 500);
    rx.failAnswer = (hook) => `bad signature ${hook.headers['webhook-signature']}`;
    const callId = await sim.ringIncoming('+4930222');
    const gaveUp = await until(() => log(g, `?callId=${callId}`), (p) => ringingOf(p, callId)?.state === 'gave_up', { what: 'the gateway giving up' });
    const ringing = ringingOf(gaveUp, callId)!;
    expect(ringing.attempts.map((a) => [a.attempt, a.ok, a.gaveUp, a.nextAttemptAt === undefined])).toEqual([
      [1, false, false, false],
      [2, false, false, false],
      [3, false, false, false],
      [4, false, true, true],
    ]);
    expect(ringing.gaveUp).toBe(true);
    expect(ringing.nextAttemptAt).toBeUndefined();
    const signatures = rx.requests.map((r) => r.headers['webhook-signature']!);
    for (const attempt of ringing.attempts) {
      expect(attempt.answer).toMatch(/^bad signature \[hidden\]$/);
      for (const signature of signatures) expect(attempt.answer).not.toContain(signature.slice(3));
    }

    // One Retry for the event: it names the newest attempt, and the attempts it makes say so.
    rx.failNext(0);
    const retry = await g.api<{ retryOf: number }>('POST', `/v1/webhook-deliveries/${ringing.lastAttemptId}/retry`);
    expect(retry.status, show(retry)).toBe(202);
    const after = await until(() => log(g, `?callId=${callId}`), (p) => ringingOf(p, callId)?.state === 'delivered', { what: 'the event delivered again' });
    const again = ringingOf(after, callId)!;
    expect(again.attempts).toHaveLength(5);
    expect(again.attempts[4]).toMatchObject({ ok: true, attempt: 1, retryOf: ringing.lastAttemptId, gaveUp: false });
    expect(again.attempts.map((a) => a.id)).toContain(again.attempts[4]!.retryOf);
    expect(after.events.filter((e) => e.event === 'call.ringing' && e.callId === callId)).toHaveLength(1);
    sim.remoteHangup();
    await callInState(g, callId, 'ended');
  });

  it('says a connection was refused, with no answer', async () => {
    const port = await closedPort();
    const g = await t.gateway({ env: { WEBHOOK_URL: `http://127.0.0.1:${port}/hook`, WEBHOOK_RETRY_DELAYS: '60s,60s,60s' } });
    const sim = await t.phone(g);
    const callId = await sim.ringIncoming('+4930333');
    const page = await until(() => log(g, `?callId=${callId}`), (p) => ringingOf(p, callId) !== undefined, { what: 'the first attempt' });
    const [attempt] = ringingOf(page, callId)!.attempts;
    expect(attempt).toMatchObject({ ok: false, errorKind: 'network_error' });
    expect(attempt!.error).toContain('ECONNREFUSED');
    expect(attempt).not.toHaveProperty('answer');
    expect(attempt).not.toHaveProperty('statusCode');
    sim.remoteHangup();
    await callInState(g, callId, 'ended');
  });
});
