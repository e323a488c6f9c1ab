import { describe, expect, it } from 'vitest';
import { GatewayRequestError, PhoneSimulator } from '../../src/simulator/index.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { openLive } from '../console/support.js';
import { acked, callInState, deviceTokenOf, until, getEvents, openPhoneSocket, show, testScope, type Call, type Device, type ErrorBody } from '../helpers/phones.js';

const t = testScope();

describe('GET /v1/devices', () => {
  it('lists every paired phone with its connection, and GET /v1/devices/{id} shows one', async () => {
    const g = await t.gateway();
    const empty = await g.api<{ devices: Device[] }>('GET', '/v1/devices');
    expect(empty.status, show(empty)).toBe(200);
    expect(empty.body.devices).toEqual([]);

    const online = await t.phone(g, { name: 'Online phone' });
    const offline = await t.phone(g, { name: 'Offline phone', connect: false });
    const list = await g.api<{ devices: Device[] }>('GET', '/v1/devices');
    expect(list.status, show(list)).toBe(200);
    expect(list.body.devices.map((d) => [d.id, d.name, d.connected]).sort()).toEqual(
      [
        [online.deviceId, 'Online phone', true],
        [offline.deviceId, 'Offline phone', false],
      ].sort(),
    );
    for (const d of list.body.devices) {
      expect(d.id).toMatch(/^phone-[0-9a-f]+$/);
      expect(Number.isNaN(Date.parse(d.registeredAt))).toBe(false);
      expect(d).toHaveProperty('latencyMs');
      expect(d).toHaveProperty('lastSeenAt');
      expect(d).toHaveProperty('health');
    }

    const one = await g.api<{ device: Device }>('GET', `/v1/devices/${offline.deviceId}`);
    expect(one.status, show(one)).toBe(200);
    expect(one.body.device).toMatchObject({ id: offline.deviceId, name: 'Offline phone', connected: false, lastSeenAt: null, latencyMs: null });
  });

  it('answers 404 for an unknown phone and 401 without a key', async () => {
    const g = await t.gateway();
    const missing = await g.api<ErrorBody>('GET', '/v1/devices/phone-000000000000');
    expect(missing.status, show(missing)).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const del = await g.api<ErrorBody>('DELETE', '/v1/devices/phone-000000000000');
    expect(del.status, show(del)).toBe(404);
    expect(del.body.error.code).toBe('NOT_FOUND');
    const anon = await g.api<ErrorBody>('GET', '/v1/devices', undefined, { key: null });
    expect(anon.status, show(anon)).toBe(401);
  });
});

describe('DELETE /v1/devices/{deviceId}', () => {
  it('answers 204, closes the socket with 4001, revokes the token, ends its live call and keeps its calls in the log', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'answer', ringMs: 10 } });
    const deviceId = sim.deviceId!;
    const token = deviceTokenOf(sim);

    // One finished call and one live call.
    const first = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId, to: '+15550001' });
    expect(first.status, show(first)).toBe(202);
    await acked(sim, 'call.active');
    const hang = await g.api('POST', `/v1/calls/${first.body.call.id}/hangup`);
    expect(hang.status, show(hang)).toBe(202);
    await callInState(g, first.body.call.id, 'ended');
    const mark = sim.events.length;
    const live = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId, to: '+15550002' });
    expect(live.status, show(live)).toBe(202);
    await acked(sim, 'call.active', mark);

    const revoked = sim.waitFor('revoked');
    const del = await g.api('DELETE', `/v1/devices/${deviceId}`);
    expect(del.status, show(del)).toBe(204);
    expect(del.text).toBe('');
    expect((await revoked).closeCode).toBe(4001);

    const gone = await g.api<ErrorBody>('GET', `/v1/devices/${deviceId}`);
    expect(gone.status, show(gone)).toBe(404);
    const list = await g.api<{ devices: Device[] }>('GET', '/v1/devices');
    expect(list.body.devices.map((d) => d.id)).not.toContain(deviceId);
    const again = await g.api('DELETE', `/v1/devices/${deviceId}`);
    expect(again.status, show(again)).toBe(404);

    const refused = await openPhoneSocket(g, { authorization: `Bearer ${token}` });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
    const other = t.track(new PhoneSimulator({ gatewayUrl: g.url, credentials: { deviceId, deviceToken: token }, audio: { kind: 'none' } }));
    const err = await other.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayRequestError);
    expect((err as GatewayRequestError).status).toBe(401);

    // The calls stay; the live one was ended with an event on its timeline.
    const calls = await g.api<{ calls: Call[] }>('GET', `/v1/calls?deviceId=${deviceId}`);
    expect(calls.status, show(calls)).toBe(200);
    expect(calls.body.calls.map((c) => c.id)).toEqual([live.body.call.id, first.body.call.id]);
    const ended = await callInState(g, live.body.call.id, 'ended');
    expect(ended.endedAt).toBeDefined();
    const last = (await getEvents(g, live.body.call.id)).at(-1);
    expect(last).toMatchObject({ event: 'call.disconnected', payload: { cause: 'other' } });

    const post = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId, to: '+15550003' });
    expect(post.status, show(post)).toBe(404);
    expect(post.body.error.code).toBe('NOT_FOUND');
  });

  it('removes a phone that is not connected', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { connect: false });
    const del = await g.api('DELETE', `/v1/devices/${sim.deviceId}`);
    expect(del.status, show(del)).toBe(204);
    await until(() => g.api('GET', `/v1/devices/${sim.deviceId}`), (r) => r.status === 404);
    const err = await sim.connect().catch((e: unknown) => e);
    expect((err as GatewayRequestError).status).toBe(401);
  });
});

describe('PATCH /v1/devices/{deviceId}', () => {
  it('renames a phone: the list, the phone itself and the live channel show the new name', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { name: 'Pixel 8' });
    const live = await openLive(g, { authorization: `Bearer ${TEST_API_KEY}` });
    t.defer(() => live.close());
    const res = await g.api<{ device: Device }>('PATCH', `/v1/devices/${sim.deviceId}`, { name: '  Front desk  ' });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.device).toMatchObject({ id: sim.deviceId, name: 'Front desk', connected: true });
    expect((await live.next((m) => m.type === 'device' && m.device?.name === 'Front desk')).deviceId).toBe(sim.deviceId);
    const list = await g.api<{ devices: Device[] }>('GET', '/v1/devices');
    expect(list.body.devices.map((d) => d.name)).toEqual(['Front desk']);
    // The phone keeps working under its new name.
    const call = await g.api('POST', '/v1/calls', { deviceId: sim.deviceId, to: '+4930700' });
    expect(call.status, show(call)).toBe(202);
  });

  it('refuses an empty or too long name and unknown fields, 404 for an unknown phone, 401 without a key', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { name: 'Pixel 8', connect: false });
    const cases: Array<[unknown, string, string]> = [
      [{}, 'body.name', 'is required'],
      [{ name: '   ' }, 'body.name', 'must not be empty'],
      [{ name: 'x'.repeat(121) }, 'body.name', 'must be at most 120 characters'],
      [{ name: 'Desk', connected: false }, 'body', 'has a field this request does not take: connected'],
    ];
    for (const [body, path, message] of cases) {
      const res = await g.api<ErrorBody>('PATCH', `/v1/devices/${sim.deviceId}`, body);
      expect(res.status, `${JSON.stringify(body)}: ${show(res)}`).toBe(400);
      expect(res.body.error.issues).toEqual([expect.objectContaining({ path, message })]);
    }
    expect((await g.api('PATCH', '/v1/devices/phone-000000000000', { name: 'Desk' })).status).toBe(404);
    expect((await g.api('PATCH', `/v1/devices/${sim.deviceId}`, { name: 'Desk' }, { key: null })).status).toBe(401);
    expect((await g.api<{ device: Device }>('GET', `/v1/devices/${sim.deviceId}`)).body.device.name).toBe('Pixel 8');
  });
});
