import { randomUUID } from 'node:crypto';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { pairCredentials, phoneEvent, RawPhone, show, type Call, type ErrorBody } from '../helpers/phones.js';

const TOTAL = 500;

interface Page {
  calls: Call[];
  nextBefore: string | null;
}

// One gateway with 500 calls for the whole file: building them is the slow part.
let g: TestGateway;
let phone: RawPhone;
let deviceId: string;
/** Every call id, newest first, as the gateway named them in the event.acks. */
let created: string[];

beforeAll(async () => {
  g = await startTestGateway();
  const creds = await pairCredentials(g);
  deviceId = creds.deviceId;
  phone = await RawPhone.connect(g, creds.deviceToken);
  // 500 incoming calls, each rung and rejected, sent back to back without waiting for acks.
  const rings: string[] = [];
  const last: string[] = [];
  for (let i = 0; i < TOTAL; i++) {
    const n = `native-${i}-${randomUUID()}`;
    const ringing = phoneEvent('call.ringing', n, { direction: 'incoming', remoteNumber: `+49301${String(i).padStart(5, '0')}` });
    // Every fifth call is left ringing, so that the filters have something to tell apart.
    const end = i % 5 === 0 ? phoneEvent('call.pulling', n) : phoneEvent('call.rejected', n);
    phone.send(ringing);
    phone.send(end);
    rings.push(ringing.eventId);
    last.push(end.eventId);
  }
  await phone.ack(last[TOTAL - 1]!, 1, 30_000);
  created = rings.map((id) => String(phone.acksOf(id)[0]?.callId)).reverse();
  expect(new Set(created).size).toBe(TOTAL);
}, 60_000);

afterAll(async () => {
  await phone?.close();
  await g?.stop();
});

async function walk(query: string, limit: number): Promise<{ pages: Page[]; ids: string[] }> {
  const pages: Page[] = [];
  let before: string | null = null;
  for (let guard = 0; guard < TOTAL + 2; guard++) {
    const url: string = `/v1/calls?limit=${limit}${query}${before ? `&before=${encodeURIComponent(before)}` : ''}`;
    const res = await g.api<Page>('GET', url);
    expect(res.status, `${url}: ${show(res)}`).toBe(200);
    pages.push(res.body);
    if (res.body.nextBefore === null) break;
    expect(res.body.calls.length, url).toBe(limit);
    expect(res.body.nextBefore).toBe(res.body.calls.at(-1)!.createdAt);
    before = res.body.nextBefore;
  }
  return { pages, ids: pages.flatMap((p) => p.calls.map((c) => c.id)) };
}

describe('paging across 500 calls', () => {
  it('limit 7 walks every call exactly once, newest first, nextBefore null on the last page', async () => {
    const { pages, ids } = await walk('', 7);
    expect(pages).toHaveLength(Math.ceil(TOTAL / 7));
    expect(pages.at(-1)!.calls).toHaveLength(TOTAL % 7 || 7);
    expect(pages.at(-1)!.nextBefore).toBeNull();
    expect(ids).toHaveLength(TOTAL);
    expect(new Set(ids).size).toBe(TOTAL);
    expect(ids).toEqual(created);
    const stamps = pages.flatMap((p) => p.calls.map((c) => c.createdAt));
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]! < stamps[i - 1]!, `${stamps[i - 1]} then ${stamps[i]}`).toBe(true);
  });

  it('limit 200: pages of 200, 200, 100', async () => {
    const { pages, ids } = await walk('', 200);
    expect(pages.map((p) => p.calls.length)).toEqual([200, 200, 100]);
    expect(pages.map((p) => p.nextBefore === null)).toEqual([false, false, true]);
    expect(ids).toEqual(created);
  });

  it('a limit that divides the total gives no empty last page', async () => {
    const { pages, ids } = await walk('', 100);
    expect(pages.map((p) => p.calls.length)).toEqual([100, 100, 100, 100, 100]);
    expect(pages.at(-1)!.nextBefore).toBeNull();
    expect(ids).toEqual(created);
  });

  it('the default page is 50', async () => {
    const res = await g.api<Page>('GET', '/v1/calls');
    expect(res.status, show(res)).toBe(200);
    expect(res.body.calls.map((c) => c.id)).toEqual(created.slice(0, 50));
    expect(res.body.nextBefore).toBe(res.body.calls[49]!.createdAt);
  });

  it('pages through a filter as well', async () => {
    const ringing = await walk(`&state=ringing&direction=incoming&deviceId=${deviceId}`, 9);
    expect(ringing.ids).toHaveLength(TOTAL / 5);
    expect(ringing.ids).toEqual(created.filter((_, i) => (TOTAL - 1 - i) % 5 === 0));
    const rejected = await walk('&state=rejected', 37);
    expect(rejected.ids).toHaveLength(TOTAL - TOTAL / 5);
    expect(new Set([...ringing.ids, ...rejected.ids]).size).toBe(TOTAL);
    const outgoing = await walk('&direction=outgoing', 10);
    expect(outgoing.ids).toEqual([]);
    expect(outgoing.pages).toHaveLength(1);
  });

  it('before takes any date-time: calls created strictly before it', async () => {
    const all = (await walk('', 200)).pages.flatMap((p) => p.calls);
    const pivot = all[123]!;
    const exact = await g.api<Page>('GET', `/v1/calls?limit=5&before=${encodeURIComponent(pivot.createdAt)}`);
    expect(exact.body.calls.map((c) => c.id)).toEqual(all.slice(124, 129).map((c) => c.id));
    const future = await g.api<Page>('GET', `/v1/calls?limit=3&before=${encodeURIComponent('2999-01-01T00:00:00Z')}`);
    expect(future.body.calls.map((c) => c.id)).toEqual(created.slice(0, 3));
    const past = await g.api<Page>('GET', `/v1/calls?before=${encodeURIComponent('2000-01-01T00:00:00+02:00')}`);
    expect(past.body).toEqual({ calls: [], nextBefore: null });
    const bad = await g.api<ErrorBody>('GET', '/v1/calls?limit=201');
    expect(bad.status).toBe(400);
  });
});
