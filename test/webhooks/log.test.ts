import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { callInState, until, getDeliveries, show, testScope, type Delivery, type ErrorBody } from '../helpers/phones.js';
import { openLive } from '../console/support.js';

const t = testScope();

interface Page {
  deliveries: Delivery[];
  nextBefore: number | null;
}

async function page(g: TestGateway, query: string): Promise<Page> {
  const res = await g.api<Page>('GET', `/v1/webhook-deliveries${query}`);
  expect(res.status, `${query}: ${show(res)}`).toBe(200);
  return res.body;
}

/** Every page of a query, following nextBefore. */
async function walk(g: TestGateway, query: string, limit: number): Promise<Page[]> {
  const pages: Page[] = [];
  let before: number | null = null;
  do {
    pages.push(await page(g, `?limit=${limit}${query}${before === null ? '' : `&before=${before}`}`));
    before = pages.at(-1)!.nextBefore;
  } while (before !== null && pages.length < 100);
  return pages;
}

/** Incoming calls rung and hung up by the caller: call.ringing and call.disconnected each. */
async function calls(g: TestGateway, count: number, sim: Awaited<ReturnType<typeof t.phone>>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = await sim.ringIncoming(`+4930${i}`);
    sim.remoteHangup();
    await callInState(g, id, 'ended');
    ids.push(id);
  }
  return ids;
}

describe('GET /v1/webhook-deliveries: filters on the server, and paging', () => {
  it('finds every failed attempt however many delivered ones came after it, page by page', async () => {
    const rx = await t.receiver();
    // One failing attempt per call: the first of each call's two events fails, then is retried.
    const g = await t.gateway({ env: { WEBHOOK_URL: rx.url, WEBHOOK_RETRY_DELAYS: '20ms,20ms,20ms' } });
    const sim = await t.phone(g);
    rx.failNext(1, 503);
    const [first] = await calls(g, 1, sim);
    const ids = [first!, ...(await calls(g, 12, sim))];
    const total = 1 + ids.length * 2;
    await until(() => getDeliveries(g, '?limit=200'), (d) => d.length === total, { what: `${total} attempts` });

    // The spec's own query still works (and now says where the next page starts).
    const spec = await page(g, `?callId=${first}&limit=50`);
    // The retry of call.ringing and the first call.disconnected may go out in either order.
    expect(spec.deliveries.map((d) => `${d.event} ${d.attempt} ${d.ok}`).sort()).toEqual(['call.disconnected 1 true', 'call.ringing 1 false', 'call.ringing 2 true']);
    expect(spec.nextBefore).toBeNull();

    // Server side: the failed row is found although 26 delivered rows are newer than it.
    const failed = await page(g, '?ok=false&limit=2');
    expect(failed.deliveries.map((d) => [d.callId, d.error])).toEqual([[first, 'HTTP 503']]);
    expect(failed.nextBefore).toBeNull();
    expect((await page(g, '?ok=true&limit=200')).deliveries).toHaveLength(total - 1);

    const ringing = await walk(g, '&event=call.ringing&ok=true', 5);
    expect(ringing.map((p) => p.deliveries.length)).toEqual([5, 5, 3]);
    const seen = ringing.flatMap((p) => p.deliveries);
    expect(seen.every((d) => d.event === 'call.ringing' && d.ok)).toBe(true);
    expect(new Set(seen.map((d) => d.callId))).toEqual(new Set(ids));
    expect(seen.map((d) => d.id)).toEqual([...seen.map((d) => d.id)].sort((a, b) => b - a));
    expect(ringing[0]!.nextBefore).toBe(ringing[0]!.deliveries.at(-1)!.id);

    // Every row exactly once across the pages of the unfiltered log.
    const everything = (await walk(g, '', 7)).flatMap((p) => p.deliveries.map((d) => d.id));
    expect(everything).toHaveLength(total);
    expect(new Set(everything).size).toBe(total);
  });

  it('refuses filters that do not fit, in plain words', async () => {
    const g = await t.gateway();
    const cases: Array<[string, string, string]> = [
      ['ok=maybe', 'query.ok', 'must be one of: true, false'],
      ['event=call.exploded', 'query.event', expect.stringMatching(/^must be one of: call\.new, /) as unknown as string],
      ['before=0', 'query.before', 'must be at least 1'],
      ['before=abc', 'query.before', 'must be a number'],
    ];
    for (const [query, path, message] of cases) {
      const res = await g.api<ErrorBody>('GET', `/v1/webhook-deliveries?${query}`);
      expect(res.status, `${query}: ${show(res)}`).toBe(400);
      expect(res.body.error.issues, query).toEqual([expect.objectContaining({ path, message })]);
    }
  });
});

describe('POST /v1/webhook-deliveries/{id}/retry', () => {
  it('sends a delivery that gave up again: same event, same body, a new delivery from attempt 1, live', async () => {
    const rx = await t.receiver();
    const g = await t.gateway({ env: { WEBHOOK_URL: rx.url } });
    const sim = await t.phone(g);
    rx.failNext(4, 500);
    const callId = await sim.ringIncoming('+4930123');
    const attempts = await until(() => getDeliveries(g, `?callId=${callId}`), (d) => d.length === 4, { what: 'four failed attempts' });
    expect(attempts.map((d) => [d.attempt, d.ok])).toEqual([
      [4, false],
      [3, false],
      [2, false],
      [1, false],
    ]);
    const gaveUp = attempts[0]!;

    const live = await openLive(g, { authorization: `Bearer ${TEST_API_KEY}` });
    t.defer(() => live.close());
    const res = await g.api('POST', `/v1/webhook-deliveries/${gaveUp.id}/retry`);
    expect(res.status, show(res)).toBe(202);
    expect(res.body).toEqual({
      retryOf: gaveUp.id,
      callId,
      eventId: gaveUp.eventId,
      event: 'call.ringing',
      url: rx.url,
      attempt: 1,
      dueAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const resent = await rx.waitFor(5);
    expect(resent[4]!.headers['webhook-id']).toBe(gaveUp.eventId);
    expect(resent[4]!.raw).toBe(resent[0]!.raw);
    const row = await until(() => getDeliveries(g, `?callId=${callId}&limit=1`), (d) => d[0]?.retryOf === gaveUp.id, { what: 'the new attempt' });
    expect(row[0]).toMatchObject({ attempt: 1, ok: true, eventId: gaveUp.eventId, retryOf: gaveUp.id });
    expect((await live.next((m) => m.type === 'delivery' && m.delivery.retryOf === gaveUp.id)).delivery).toEqual(row[0]);
    // The original rows stay as they were.
    expect((await getDeliveries(g, `?callId=${callId}`)).slice(1)).toEqual(attempts);
  });

  it('keeps what a delivery sent once, not once per attempt, and still sends any of its rows again', async () => {
    const rx = await t.receiver();
    const g = await t.gateway({ env: { WEBHOOK_URL: rx.url, WEBHOOK_RETRY_DELAYS: '20ms,20ms,20ms' } });
    const sim = await t.phone(g);
    rx.failNext(4, 500);
    const callId = await sim.ringIncoming('+4930125');
    const attempts = await until(() => getDeliveries(g, `?callId=${callId}&event=call.ringing`), (d) => d.length === 4, { what: 'four failed attempts' });
    const stored = await g.store.db.selectFrom('webhook_deliveries').select(['attempt', 'body']).where('call_id', '=', callId).where('event', '=', 'call.ringing').orderBy('id').execute();
    expect(stored.map((r) => [r.attempt, r.body === null ? null : 'body'])).toEqual([
      [1, 'body'],
      [2, null],
      [3, null],
      [4, null],
    ]);
    // A later attempt's row is sent again with the body its delivery sent.
    const third = attempts.find((d) => d.attempt === 3)!;
    expect((await g.api('POST', `/v1/webhook-deliveries/${third.id}/retry`)).status).toBe(202);
    const resent = await rx.waitFor(5);
    expect(resent[4]!.raw).toBe(resent[0]!.raw);
    expect(resent[4]!.headers['webhook-id']).toBe(third.eventId);
    // The new delivery keeps its body once too.
    await until(() => getDeliveries(g, `?callId=${callId}&event=call.ringing`), (d) => d.length === 5, { what: 'the new attempt' });
    const bodies = await g.store.db.selectFrom('webhook_deliveries').select('body').where('call_id', '=', callId).where('body', 'is not', null).execute();
    expect(bodies).toHaveLength(2);
  });

  it('refuses while the event is still being retried to that URL, and retries a delivered one on request', async () => {
    const rx = await t.receiver();
    const g = await t.gateway({ env: { WEBHOOK_URL: rx.url, WEBHOOK_RETRY_DELAYS: '1h,1h,1h' } });
    const sim = await t.phone(g);
    rx.failNext(1, 500);
    const callId = await sim.ringIncoming('+4930124');
    const [failed] = await until(() => getDeliveries(g, `?callId=${callId}`), (d) => d.length === 1, { what: 'the failed attempt' });
    const pending = await g.api<ErrorBody>('POST', `/v1/webhook-deliveries/${failed!.id}/retry`);
    expect(pending.status, show(pending)).toBe(409);
    expect(pending.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/still being delivered.*attempt 2 is due at \d{4}-/) });

    sim.remoteHangup();
    const delivered = await until(() => getDeliveries(g, `?callId=${callId}&event=call.disconnected`), (d) => d.length === 1, { what: 'call.disconnected' });
    // Two clicks at once schedule one delivery: the second finds the first one's job. The receiver
    // fails the new attempt, so that job stays (attempt 2, due in an hour) however late the second
    // click is handled; had it succeeded, a click after it would rightly retry once more.
    rx.failNext(1, 500);
    const [a, b] = await Promise.all([1, 2].map(() => g.api('POST', `/v1/webhook-deliveries/${delivered[0]!.id}/retry`)));
    expect([a!.status, b!.status].sort()).toEqual([202, 409]);
    await until(() => getDeliveries(g, `?callId=${callId}&event=call.disconnected`), (d) => d.length === 2, { what: 'the new attempt' });
    expect(rx.requests.filter((r) => r.body.event === 'call.disconnected')).toHaveLength(2);
  });

  it('answers 404 for an unknown row, 400 for an id that is not one, 401 without a key; the OpenAPI document lists it', async () => {
    const g = await t.gateway();
    expect((await g.api<ErrorBody>('POST', '/v1/webhook-deliveries/999/retry')).status).toBe(404);
    const bad = await g.api<ErrorBody>('POST', '/v1/webhook-deliveries/abc/retry');
    expect(bad.status, show(bad)).toBe(400);
    expect(bad.body.error.issues).toEqual([expect.objectContaining({ path: 'path.id', message: 'must be a number' })]);
    expect((await g.api('POST', '/v1/webhook-deliveries/1/retry', undefined, { key: null })).status).toBe(401);

    const doc = await g.api<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: { schemas: Record<string, unknown> } }>('GET', '/openapi.json', undefined, { key: null });
    expect(Object.keys(doc.body.paths['/v1/webhook-deliveries/{id}/retry']!.post!.responses)).toEqual(['202', '400', '401', '404', '409']);
    expect(JSON.stringify(doc.body.components.schemas.WebhookDelivery)).toContain('"retryOf"');
    expect(JSON.stringify(doc.body.components.schemas.WebhookDeliveryList)).toContain('"nextBefore"');
  });
});
