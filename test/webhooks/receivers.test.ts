import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { acked, until, pairCredentials, phoneEvent, show, testScope, type Call, type RawPhone } from '../helpers/phones.js';

const t = testScope();

async function setDefaultWebhook(g: TestGateway, url: string): Promise<void> {
  const res = await g.api('PUT', '/v1/settings', { webhookUrl: url });
  expect(res.status, show(res)).toBe(200);
}

/** Rings `count` incoming calls on a raw phone; their webhooks go to the default URL. */
async function ringCalls(phone: RawPhone, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await phone.event(phoneEvent('call.ringing', `native-${randomUUID()}`, { direction: 'incoming', remoteNumber: `+49301${String(i).padStart(4, '0')}` }));
  }
}

/** The garbage collector, callable from a test (V8 exposes it to contexts made after the flag is set). */
function exposedGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('webhook receivers that hang', () => {
  it('ends every attempt within its timeout while the garbage collector and REST traffic run', async () => {
    const timeoutMs = 300;
    const g = await t.gateway({ timings: { webhookTimeoutMs: timeoutMs }, env: { WEBHOOK_RETRY_DELAYS: '1h,1h,1h' } });
    const hook = await t.receiver();
    hook.hang = true;
    await setDefaultWebhook(g, hook.url);
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);

    const gc = exposedGc();
    let churning = true;
    const churn = (async () => {
      while (churning) {
        gc();
        // Garbage of our own, and REST requests, as on a gateway in use.
        void Array.from({ length: 20_000 }, (_, i) => ({ i }));
        expect((await g.api('GET', '/v1/calls?limit=5')).status).toBe(200);
      }
    })();
    t.defer(async () => {
      churning = false;
      await churn;
    });

    await ringCalls(phone, 8);
    await hook.waitFor(8);
    const rows = await until(
      () => g.store.db.selectFrom('webhook_deliveries').select(['error', 'duration_ms']).execute(),
      (r) => r.length === 8,
      { timeoutMs: 10_000, what: '8 attempts that timed out' },
    );
    churning = false;
    await churn;
    for (const row of rows) {
      expect(row.error).toBe(`timeout after ${timeoutMs} ms`);
      expect(row.duration_ms).toBeLessThan(timeoutMs + 1000);
    }
  });

  it("does not hold back another call's webhooks while calls pointing at a hanging receiver wait", async () => {
    const g = await t.gateway({ timings: { webhookTimeoutMs: 60_000 } });
    const hanging = await t.receiver('/hangs');
    hanging.hang = true;
    await setDefaultWebhook(g, hanging.url);
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);
    await ringCalls(phone, 40);
    await hanging.waitFor(16);

    const healthy = await t.receiver('/healthy');
    const sim = await t.phone(g, { dial: { outcome: 'answer', ringMs: 10 } });
    const placed = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+15550100', webhookUrl: healthy.url });
    expect(placed.status, show(placed)).toBe(202);
    const callId = placed.body.call.id;
    await acked(sim, 'call.active');
    expect((await g.api('POST', `/v1/calls/${callId}/hangup`)).status).toBe(202);

    const got = await healthy.waitFor(3, 3000);
    expect(got.map((r) => [r.body.event, r.body.call.id])).toEqual([
      ['call.dialing', callId],
      ['call.active', callId],
      ['call.disconnected', callId],
    ]);
    expect(hanging.of(callId)).toEqual([]);
  });
});
