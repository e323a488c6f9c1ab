import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { until, getDeliveries, pairCredentials, phoneEvent, show, testScope } from '../helpers/phones.js';

const t = testScope();

describe('event ids', () => {
  it('refuses an eventId that could not travel as the webhook-id header, and keeps serving the phone', async () => {
    const g = await t.gateway();
    const hook = await t.receiver();
    expect((await g.api('PUT', '/v1/settings', { webhookUrl: hook.url })).status).toBe(200);
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);

    for (const eventId of ['中', 'evt\r\nX-Injected: yes', 'a b', 'x'.repeat(65)]) {
      const refusal = phone.nextNew((m) => m.type === 'error');
      phone.send(phoneEvent('call.ringing', `native-${randomUUID()}`, { eventId, direction: 'incoming', remoteNumber: '+4930100' }));
      expect(await refusal, eventId).toMatchObject({ code: 'BAD_MESSAGE', message: expect.stringContaining('eventId') });
    }
    // The Android app and the simulator name events with UUIDs; other plain ids pass too.
    for (const eventId of [randomUUID(), 'evt_1.a:b-c']) {
      const ack = await phone.event(phoneEvent('call.ringing', `native-${randomUUID()}`, { eventId, direction: 'incoming', remoteNumber: '+4930100' }));
      expect(ack.callId, eventId).toEqual(expect.any(String));
    }
    await hook.waitFor(2);
    expect(hook.requests.map((r) => r.headers['webhook-id']).sort()).toEqual(hook.requests.map((r) => r.body.eventId).sort());
  });

  it('records a stored job whose eventId cannot be a header as a refused attempt, and still delivers the others', async () => {
    const g = await t.gateway();
    const hook = await t.receiver();
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);
    const ack = await phone.event(phoneEvent('call.ringing', `native-${randomUUID()}`, { direction: 'incoming', remoteNumber: '+4930100' }));
    const callId = String(ack.callId);
    const body = { event: 'call.ringing', occurredAt: new Date().toISOString(), receivedAt: new Date().toISOString(), payload: {}, call: { id: callId } };
    // Jobs stored before event ids were checked: one that HTTP cannot carry, one that it can.
    for (const eventId of ['中', 'legacy/id+1']) {
      await g.services.webhooks.enqueue({ callId, eventId, event: 'call.ringing', url: hook.url, body: { ...body, eventId } });
    }
    const delivered = await hook.waitUntil((r) => r.body.eventId === 'legacy/id+1');
    expect(delivered.headers['webhook-id']).toBe('legacy/id+1');
    const rows = await until(() => getDeliveries(g, `?callId=${callId}`), (d) => d.some((row) => row.eventId === '中'), { what: 'the refused attempt' });
    expect(rows.find((row) => row.eventId === '中')).toMatchObject({ ok: false, attempt: 1, error: expect.stringContaining('webhook-id') });
    expect(hook.requests.some((r) => r.body.eventId === '中')).toBe(false);
    // The gateway is still there.
    const health = await g.api('GET', '/health');
    expect(health.status, show(health)).toBe(200);
  });
});
