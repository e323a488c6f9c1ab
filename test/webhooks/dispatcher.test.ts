import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { openStore, type Store } from '../../src/store/index.js';
import { WebhookDispatcher, type WebhookBody, type WebhookDelivery, type WebhookDispatcherOptions } from '../../src/webhooks/index.js';
import { until } from '../helpers/phones.js';
import { Recorded } from '../helpers/waits.js';
import { FakeReceiver } from './receiver.js';
import { closedPort } from '../streams/helpers.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const FAST = [50, 100, 150];
const SLOW = [60_000, 60_000, 60_000];

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'vg-webhooks-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function receiver(respond?: ConstructorParameters<typeof FakeReceiver>[0]): Promise<FakeReceiver> {
  const r = await FakeReceiver.start(respond);
  cleanups.push(() => r.close());
  return r;
}

/** Deliveries reported through onDelivery, awaitable by count. */
class Deliveries {
  private readonly reported = new Recorded<WebhookDelivery>('deliveries', (d) => `${d.eventId} ${d.ok ? 'ok' : 'failed'}`);
  readonly push = (d: WebhookDelivery): void => this.reported.add(d);
  get all(): WebhookDelivery[] {
    return this.reported.items;
  }
  /** The first `n` deliveries, once reported (retries come after their delays: a bound under the runner's 20 s). */
  async count(n: number): Promise<WebhookDelivery[]> {
    if (n > 0) await this.reported.nth(n - 1, undefined, { timeoutMs: 15_000, what: `delivery #${n}` });
    return this.all.slice(0, n);
  }
}

interface Setup {
  store: Store;
  dispatcher: WebhookDispatcher;
  deliveries: Deliveries;
  logs: string[];
  /** Stops the dispatcher and closes the store (once). */
  close(): Promise<void>;
}

async function setup(options: Partial<WebhookDispatcherOptions> & { dataDir?: string; start?: boolean } = {}): Promise<Setup> {
  const logs: string[] = [];
  const log = createLogger(
    'debug',
    new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    }),
  );
  const store = await openStore({ dataDir: options.dataDir ?? tempDir(), log });
  const deliveries = new Deliveries();
  const dispatcher = new WebhookDispatcher({ store, log, secret: () => SECRET, retryDelaysMs: FAST, onDelivery: deliveries.push, ...options });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await dispatcher.stop();
      await store.close();
    })());
  cleanups.push(close);
  if (options.start !== false) await dispatcher.start();
  return { store, dispatcher, deliveries, logs, close };
}

function job(url: string, callId: string, n: number, event = 'call.active'): { callId: string; eventId: string; event: string; url: string; body: WebhookBody } {
  const eventId = `evt_${callId}_${n}`;
  return {
    callId,
    eventId,
    event,
    url,
    body: {
      event,
      eventId,
      occurredAt: '2026-11-20T12:00:00.000Z',
      receivedAt: '2026-11-20T12:00:00.120Z',
      payload: { n },
      call: { id: callId, state: 'active', remoteNumber: '+15550100', metadata: { name: 'Zoë' } },
    },
  };
}

describe('WebhookDispatcher', () => {
  it('POSTs the contract body with Standard Webhooks headers', async () => {
    const rx = await receiver();
    const { dispatcher, deliveries } = await setup();
    const j = job(rx.url, 'call_a', 1, 'call.ringing');
    await dispatcher.enqueue(j);

    const req = await rx.nth(1);
    expect(new Webhook(SECRET).verify(req.body, req.headers)).toEqual(j.body);
    expect(req.headers).toMatchObject({ 'webhook-id': j.eventId, 'content-type': 'application/json', 'user-agent': 'voice-gateway/0.1.0' });
    expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(Object.keys(JSON.parse(req.body) as object)).toEqual(['event', 'eventId', 'occurredAt', 'receivedAt', 'payload', 'call']);

    const [d] = await deliveries.count(1);
    expect(d).toEqual({ id: expect.any(Number), callId: 'call_a', eventId: j.eventId, event: 'call.ringing', url: rx.url, attempt: 1, ok: true, statusCode: 204, durationMs: expect.any(Number), gaveUp: false, at: expect.any(String) });
    expect((await dispatcher.listDeliveries({ limit: 50 })).deliveries).toEqual([d]);
  });

  it('retries a failing receiver after the configured delays, with the same id and body', async () => {
    const statuses = [500, 503, 200];
    const rx = await receiver((r) => r.res.writeHead(statuses[r.n - 1] ?? 200).end('nope'));
    const { dispatcher, deliveries, logs } = await setup();
    await dispatcher.enqueue(job(rx.url, 'call_a', 1));

    const ds = await deliveries.count(3);
    expect(ds.map((d) => [d.attempt, d.ok, d.error])).toEqual([
      [1, false, 'HTTP 500'],
      [2, false, 'HTTP 503'],
      [3, true, undefined],
    ]);
    const reqs = rx.requests;
    expect(reqs).toHaveLength(3);
    expect(new Set(reqs.map((r) => r.headers['webhook-id']))).toEqual(new Set(['evt_call_a_1']));
    expect(new Set(reqs.map((r) => r.body)).size).toBe(1);
    for (const r of reqs) new Webhook(SECRET).verify(r.body, r.headers);
    expect(reqs[1]!.at - reqs[0]!.at).toBeGreaterThanOrEqual(FAST[0]!);
    expect(reqs[2]!.at - reqs[1]!.at).toBeGreaterThanOrEqual(FAST[1]!);

    const listed = await dispatcher.listDeliveries({ limit: 50 });
    expect(listed.deliveries.map((d) => d.attempt)).toEqual([3, 2, 1]);
    const secretKey = SECRET.slice('whsec_'.length);
    expect(logs.some((l) => l.includes(secretKey))).toBe(false);
    const failure = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'webhook attempt failed; will retry');
    expect(failure).toMatchObject({ callId: 'call_a', eventId: 'evt_call_a_1', attempt: 1, error: 'HTTP 500' });
  });

  it('makes exactly 4 attempts against a receiver that always fails, then drops the job', async () => {
    const rx = await receiver((r) => r.res.writeHead(500).end());
    const { store, dispatcher, deliveries } = await setup();
    await dispatcher.enqueue(job(rx.url, 'call_a', 1));

    const ds = await deliveries.count(4);
    expect(ds.map((d) => [d.attempt, d.ok])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, false],
    ]);
    expect(await store.db.selectFrom('webhook_jobs').selectAll().execute()).toEqual([]);
    expect(rx.requests).toHaveLength(4);
    expect(deliveries.all).toHaveLength(4);
  });

  it('gives up on an attempt after timeoutMs', async () => {
    const rx = await receiver(() => undefined);
    const { store, dispatcher, deliveries } = await setup({ timeoutMs: 200, retryDelaysMs: SLOW });
    await dispatcher.enqueue(job(rx.url, 'call_a', 1));

    const [d] = await deliveries.count(1);
    expect(d).toMatchObject({ attempt: 1, ok: false, error: 'timeout after 200 ms' });
    const row = await store.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
    expect(row.status_code).toBeNull();
    expect(row.duration_ms).toBeGreaterThanOrEqual(190);
    expect(await store.db.selectFrom('webhook_jobs').select(['attempt']).execute()).toEqual([{ attempt: 2 }]);
  });

  it('takes a 2xx whose answer never ends as delivered, reading no more than a little of it', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024);
      // An endless answer: the attempt must not wait for it, nor keep it.
      const pump = () => {
        while (res.write(chunk)) if (res.destroyed) return;
      };
      res.on('drain', pump);
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const { dispatcher, deliveries } = await setup({ timeoutMs: 5000, retryDelaysMs: SLOW });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    await dispatcher.enqueue(job(url, 'call_a', 1));
    const [d] = await deliveries.count(1);
    expect(d).toMatchObject({ attempt: 1, ok: true });
  });

  it('records network errors', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/hook`;
    const { dispatcher, deliveries } = await setup({ retryDelaysMs: SLOW });
    await dispatcher.enqueue(job(url, 'call_a', 1));
    const [d] = await deliveries.count(1);
    expect(d?.ok).toBe(false);
    expect(d?.error).toMatch(/ECONNREFUSED/);
  });

  it('resumes a due retry after a restart', async () => {
    const delays = [400, 400, 400];
    const rx = await receiver((r) => r.res.writeHead(r.n === 1 ? 500 : 200).end());
    const dataDir = tempDir();
    const first = await setup({ dataDir, retryDelaysMs: delays });
    await first.dispatcher.enqueue(job(rx.url, 'call_a', 1));
    await first.deliveries.count(1);
    await first.close();
    expect(rx.requests).toHaveLength(1);

    const second = await setup({ dataDir, retryDelaysMs: delays });
    const retry = await rx.nth(2);
    const [d] = await second.deliveries.count(1);
    expect(d).toMatchObject({ attempt: 2, ok: true, eventId: 'evt_call_a_1' });
    expect(retry.headers['webhook-id']).toBe('evt_call_a_1');
    expect(retry.body).toBe(rx.requests[0]!.body);
    expect(retry.at - rx.requests[0]!.at).toBeGreaterThanOrEqual(delays[0]!);
    expect((await second.dispatcher.listDeliveries({ limit: 50 })).deliveries.map((x) => [x.attempt, x.ok])).toEqual([
      [2, true],
      [1, false],
    ]);
  });

  it('sends a job that was enqueued before start as soon as it starts', async () => {
    const rx = await receiver();
    const { dispatcher, deliveries } = await setup({ start: false });
    await dispatcher.enqueue(job(rx.url, 'call_a', 1));
    expect(rx.requests).toHaveLength(0);
    await dispatcher.start();
    expect((await deliveries.count(1))[0]).toMatchObject({ ok: true });
  });

  it("sends one call's first attempts in timeline order while other calls go on", async () => {
    let a1Answered = 0;
    const held = new Map<string, FakeReceiver['requests'][number]>();
    const rx = await receiver((r) => {
      const id = r.headers['webhook-id']!;
      if (id === 'evt_call_a_1' || id === 'evt_call_b_1') {
        held.set(id, r);
        if (held.size < 2) return;
        // Both calls are in flight at once; answer call_b now and call_a's first event slowly.
        held.get('evt_call_b_1')!.res.writeHead(204).end();
        setTimeout(() => {
          a1Answered = Date.now();
          held.get('evt_call_a_1')!.res.writeHead(204).end();
        }, 150);
        return;
      }
      r.res.writeHead(204).end();
    });
    const { dispatcher, deliveries } = await setup();
    await dispatcher.enqueue(job(rx.url, 'call_a', 1, 'call.dialing'));
    await dispatcher.enqueue(job(rx.url, 'call_a', 2, 'call.active'));
    await dispatcher.enqueue(job(rx.url, 'call_b', 1, 'call.ringing'));
    await dispatcher.enqueue(job(rx.url, 'call_a', 3, 'call.disconnected'));

    await deliveries.count(4);
    const ids = rx.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(ids.slice(0, 2))).toEqual(new Set(['evt_call_a_1', 'evt_call_b_1']));
    expect(ids.slice(2)).toEqual(['evt_call_a_2', 'evt_call_a_3']);
    expect(a1Answered).toBeGreaterThan(0);
    expect(rx.requests[2]!.at).toBeGreaterThanOrEqual(a1Answered);
  });

  it('does not stall an unrelated call behind 600 queued events for a receiver that never answers', async () => {
    const dead = await receiver(() => undefined);
    const rx = await receiver();
    const { dispatcher } = await setup({ timeoutMs: 60_000, retryDelaysMs: SLOW, start: false });
    for (let n = 1; n <= 600; n++) await dispatcher.enqueue(job(dead.url, `call_dead_${n % 3}`, n));
    await dispatcher.enqueue(job(rx.url, 'call_other', 1));
    await dispatcher.start();
    await dispatcher.enqueue(job(rx.url, 'call_other', 2));

    await rx.nth(2);
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual(['evt_call_other_1', 'evt_call_other_2']);
    // The dead receiver has one attempt in flight per call: first attempts keep each call's order.
    await dead.nth(3);
    expect(new Set(dead.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(['evt_call_dead_1_1', 'evt_call_dead_2_2', 'evt_call_dead_0_3']));
  });

  it('sends an attempt again when its outcome could not be stored, and records it then', async () => {
    const rx = await receiver();
    // Held back for max(1 s, the retry delay) when the store fails.
    const { store, dispatcher, deliveries, logs } = await setup();
    await store.db.schema.alterTable('webhook_deliveries').renameTo('webhook_deliveries_away').execute();
    await dispatcher.enqueue(job(rx.url, 'call_a', 1));
    await dispatcher.enqueue(job(rx.url, 'call_b', 1));
    await rx.nth(2);
    const failed = () => Promise.resolve(logs.filter((l) => l.includes('could not record the webhook attempt')).length);
    await until(failed, (n) => n === 2, { what: 'two attempts that could not be recorded' });
    await store.db.schema.alterTable('webhook_deliveries_away').renameTo('webhook_deliveries').execute();

    const ds = await deliveries.count(2);
    expect(ds.map((d) => [d.eventId, d.attempt, d.ok]).sort()).toEqual([
      ['evt_call_a_1', 1, true],
      ['evt_call_b_1', 1, true],
    ]);
    expect(rx.requests.map((r) => r.headers['webhook-id']).sort()).toEqual(['evt_call_a_1', 'evt_call_a_1', 'evt_call_b_1', 'evt_call_b_1']);
    expect(await store.db.selectFrom('webhook_jobs').selectAll().execute()).toEqual([]);
  });

  it('does not hold later events back behind a retry', async () => {
    const rx = await receiver((r) => r.res.writeHead(r.n === 1 ? 500 : 204).end());
    const { dispatcher, deliveries } = await setup({ retryDelaysMs: [200, 200, 200] });
    await dispatcher.enqueue(job(rx.url, 'call_a', 1));
    await dispatcher.enqueue(job(rx.url, 'call_a', 2));

    await deliveries.count(3);
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual(['evt_call_a_1', 'evt_call_a_2', 'evt_call_a_1']);
  });

  it('lists deliveries newest first, by call and with a limit', async () => {
    const rx = await receiver();
    const { dispatcher, deliveries } = await setup();
    for (const [callId, n] of [
      ['call_a', 1],
      ['call_b', 1],
      ['call_a', 2],
      ['call_b', 2],
      ['call_a', 3],
    ] as const) {
      await dispatcher.enqueue(job(rx.url, callId, n));
    }
    await deliveries.count(5);

    const page = async (query: Parameters<typeof dispatcher.listDeliveries>[0]) => (await dispatcher.listDeliveries(query)).deliveries;
    const all = await page({ limit: 50 });
    expect(all).toHaveLength(5);
    expect(all.map((d) => d.id)).toEqual([...all.map((d) => d.id)].sort((x, y) => y - x));
    expect(all.every((d) => !('error' in d))).toBe(true);
    const a = await page({ callId: 'call_a', limit: 50 });
    expect(a.map((d) => d.eventId)).toEqual(['evt_call_a_3', 'evt_call_a_2', 'evt_call_a_1']);
    expect(await page({ limit: 2 })).toEqual(all.slice(0, 2));
    expect(await page({ callId: 'call_a', limit: 1 })).toEqual(a.slice(0, 1));
    expect(await page({ callId: 'nobody', limit: 50 })).toEqual([]);
  });

  it('returns from enqueue at once while the receiver hangs; stop() interrupts the hung attempts', async () => {
    const rx = await receiver(() => undefined);
    const { store, dispatcher, close } = await setup({ retryDelaysMs: SLOW });
    const t0 = performance.now();
    await dispatcher.enqueue(job(rx.url, 'call_a', 1));
    await rx.nth(1);
    await dispatcher.enqueue(job(rx.url, 'call_a', 2));
    await dispatcher.enqueue(job(rx.url, 'call_b', 1));
    expect(performance.now() - t0).toBeLessThan(2_000);
    const second = await rx.nth(2);
    expect(second.headers['webhook-id']).toBe('evt_call_b_1');
    expect((await dispatcher.listDeliveries({ limit: 50 })).deliveries).toEqual([]);

    // stop() waits about 2 s, then aborts; interrupted attempts leave no row and stay queued for the next start.
    const t1 = performance.now();
    await dispatcher.stop();
    expect(performance.now() - t1).toBeLessThan(3_000);
    expect((await dispatcher.listDeliveries({ limit: 50 })).deliveries).toEqual([]);
    const jobs = await store.db.selectFrom('webhook_jobs').select(['event_id', 'attempt']).orderBy('id').execute();
    expect(jobs).toEqual([
      { event_id: 'evt_call_a_1', attempt: 1 },
      { event_id: 'evt_call_a_2', attempt: 1 },
      { event_id: 'evt_call_b_1', attempt: 1 },
    ]);
    await close();
  });

  it('enqueues inside the caller transaction and sends after release()', async () => {
    const rx = await receiver();
    const { store, dispatcher, deliveries } = await setup();
    await expect(
      store.db.transaction().execute(async (trx) => {
        await dispatcher.enqueue(job(rx.url, 'call_a', 1), trx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const stored = await store.db.transaction().execute((trx) => dispatcher.enqueue(job(rx.url, 'call_a', 2), trx));
    expect(rx.requests).toHaveLength(0);
    dispatcher.release(stored);

    const [d] = await deliveries.count(1);
    expect(d?.eventId).toBe('evt_call_a_2');
    expect(rx.requests.map((r) => r.headers['webhook-id'])).toEqual(['evt_call_a_2']);
    expect(await store.db.selectFrom('webhook_jobs').selectAll().execute()).toEqual([]);
  });
});
