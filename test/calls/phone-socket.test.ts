import { describe, expect, it } from 'vitest';
import { PhoneSimulator } from '../../src/simulator/index.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { deviceTokenOf, until, getDevice, openPhoneSocket, pairCredentials, phoneEvent, RawPhone, testScope } from '../helpers/phones.js';

const t = testScope();

describe('the phone socket /v1/phone', () => {
  it('refuses the upgrade with 401 and the error body for a missing, unknown or non-device token', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const cases: Array<[string, Record<string, string>]> = [
      ['no token', {}],
      ['unknown token', { authorization: 'Bearer dt_not-a-real-token-0000000000000000000000' }],
      ['garbage', { authorization: 'Basic abc' }],
      ['an API key is not a device token', { authorization: `Bearer ${TEST_API_KEY}` }],
      ['a tampered token', { authorization: `Bearer ${creds.deviceToken}x` }],
    ];
    for (const [what, headers] of cases) {
      const outcome = await openPhoneSocket(g, headers);
      expect(outcome.ok, what).toBe(false);
      if (outcome.ok) continue;
      expect(outcome.status, what).toBe(401);
      expect(outcome.body, what).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    }
    const good = await t.raw(g, creds.deviceToken);
    expect(good.open).toBe(true);
  });

  it('answers hello with welcome naming the device and the server time', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken, false);
    const before = Date.now();
    phone.send({ type: 'hello', appVersion: '9.9.9' });
    const welcome = await phone.next((m) => m.type === 'welcome');
    expect(welcome).toMatchObject({ type: 'welcome', deviceId: creds.deviceId });
    expect(Math.abs(Date.parse(String(welcome.serverTime)) - before)).toBeLessThan(5000);
    const device = await until(() => getDevice(g, creds.deviceId), (d) => d.health?.appVersion === '9.9.9');
    expect(device.connected).toBe(true);
    // A health report without an app version replaces the last report but keeps the hello's version.
    phone.send({ type: 'health', health: { battery: 80, network: 'wifi', reportedAt: new Date().toISOString() } });
    const reported = await until(() => getDevice(g, creds.deviceId), (d) => d.health?.battery === 80);
    expect(reported.health).toMatchObject({ appVersion: '9.9.9', battery: 80, network: 'wifi' });
  });

  it('answers non-JSON, unknown types, invalid messages and messages before hello with BAD_MESSAGE and keeps the socket open', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken, false);
    const errors = () => phone.messages.filter((m) => m.type === 'error');

    phone.send({ type: 'health', health: { battery: 10 } });
    await phone.next(() => errors().length >= 1);
    phone.sendText('this is not json');
    await phone.next(() => errors().length >= 2);
    phone.send({ type: 'teleport', to: 'mars' });
    await phone.next(() => errors().length >= 3);
    phone.send({ no: 'type' });
    await phone.next(() => errors().length >= 4);
    phone.send({ type: 'event', eventId: 'x' });
    await phone.next(() => errors().length >= 5);
    for (const e of errors()) expect(e, JSON.stringify(e)).toMatchObject({ type: 'error', code: 'BAD_MESSAGE', message: expect.any(String) });

    expect(phone.open).toBe(true);
    phone.send({ type: 'hello', appVersion: '1' });
    await phone.next((m) => m.type === 'welcome');
    phone.sendText('[1, 2');
    await phone.next(() => errors().length >= 6);
    phone.send({ type: 'health', health: { battery: 55, network: 'cellular', reportedAt: new Date().toISOString() } });
    const device = await until(() => getDevice(g, creds.deviceId), (d) => d.health?.battery === 55);
    expect(device.connected).toBe(true);
    expect(phone.open).toBe(true);
    expect(errors()).toHaveLength(6);
  });

  it('shows the health report in GET /v1/devices/{id} and follows changes', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { health: { battery: 42, charging: false, network: 'cellular', signal: 2, carrier: 'Test Mobile', audio: 'running' }, model: 'Pixel 9', android: '15', appVersion: '2.0.0' });
    const device = await until(() => getDevice(g, sim.deviceId!), (d) => d.health?.battery === 42);
    expect(device).toMatchObject({ id: sim.deviceId, name: 'Test phone', connected: true });
    expect(device.health).toMatchObject({ battery: 42, charging: false, network: 'cellular', signal: 2, carrier: 'Test Mobile', audio: 'running', model: 'Pixel 9', android: '15', appVersion: '2.0.0' });
    expect(Number.isNaN(Date.parse(String(device.health?.reportedAt)))).toBe(false);
    expect(device.lastSeenAt).not.toBeNull();

    sim.setHealth({ network: 'wifi', battery: 41, signal: 4 });
    const changed = await until(() => getDevice(g, sim.deviceId!), (d) => d.health?.network === 'wifi');
    expect(changed.health).toMatchObject({ battery: 41, signal: 4, network: 'wifi' });
  });

  it('refuses an out-of-range health report and keeps the previous one', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    phone.send({ type: 'health', health: { battery: 80 } });
    await until(() => getDevice(g, creds.deviceId), (d) => d.health?.battery === 80);
    phone.send({ type: 'health', health: { battery: 101, signal: 9 } });
    const error = await phone.next((m) => m.type === 'error');
    expect(error.code).toBe('BAD_MESSAGE');
    expect((await getDevice(g, creds.deviceId)).health?.battery).toBe(80);
  });

  it('reports connected true while a socket is open and false after it closes', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const id = sim.deviceId!;
    expect((await getDevice(g, id)).connected).toBe(true);
    await sim.disconnect();
    await until(() => getDevice(g, id), (d) => !d.connected, { what: 'connected false' });
    const list = await g.api<{ devices: Array<{ id: string; connected: boolean }> }>('GET', '/v1/devices');
    expect(list.body.devices.find((d) => d.id === id)?.connected).toBe(false);
    await sim.connect();
    expect((await getDevice(g, id)).connected).toBe(true);
  });

  it('closes the older socket of a phone with 4000 when a newer one opens', async () => {
    const g = await t.gateway();
    const first = await t.phone(g, { reconnect: true });
    const replaced = first.waitFor('replaced');
    const second = t.track(new PhoneSimulator({ gatewayUrl: g.url, credentials: { deviceId: first.deviceId!, deviceToken: deviceTokenOf(first) }, audio: { kind: 'none' } }));
    await second.connect();
    expect((await replaced).closeCode).toBe(4000);
    expect(first.connected).toBe(false);
    expect(second.connected).toBe(true);
    // The replaced phone does not fight back, and the phone stays connected through the newer socket.
    expect((await getDevice(g, first.deviceId!)).connected).toBe(true);

    // Raw sockets too: the close code arrives on the older one.
    const creds = await pairCredentials(g);
    const a = await t.raw(g, creds.deviceToken);
    const b = await t.raw(g, creds.deviceToken);
    expect((await a.closed).code).toBe(4000);
    expect(b.open).toBe(true);
    expect((await getDevice(g, creds.deviceId)).connected).toBe(true);
  });

  it('sets latencyMs and moves lastSeenAt after a ping', async () => {
    const g = await t.gateway({ timings: { pingIntervalMs: 100 } });
    const creds = await pairCredentials(g);
    await t.raw(g, creds.deviceToken);
    const first = await until(() => getDevice(g, creds.deviceId), (d) => typeof d.latencyMs === 'number', { what: 'latencyMs' });
    expect(Number.isInteger(first.latencyMs)).toBe(true);
    expect(first.latencyMs).toBeGreaterThanOrEqual(0);
    expect(first.latencyMs).toBeLessThan(1000);
    const moved = await until(() => getDevice(g, creds.deviceId), (d) => d.lastSeenAt !== first.lastSeenAt, { what: 'lastSeenAt moves with pongs' });
    expect(Date.parse(moved.lastSeenAt!)).toBeGreaterThan(Date.parse(first.lastSeenAt!));
  });

  it('drops a half-open phone once a ping goes unanswered for pongTimeoutMs, not a ping later', async () => {
    const g = await t.gateway({ timings: { pingIntervalMs: 150, pongTimeoutMs: 50 } });
    const creds = await pairCredentials(g);
    // A phone whose connection silently drops everything: it never answers a ping. Counted from the
    // upgrade, since the gateway pings from then on; the welcome is not awaited, as the drop may come first.
    const phone = await t.raw(g, creds.deviceToken, false, { autoPong: false });
    let pings = 0;
    phone.ws.on('ping', () => (pings += 1));
    phone.send({ type: 'hello', appVersion: 'raw-1' });
    const closed = await phone.closed;
    expect(closed.code).toBe(1006);
    expect(pings).toBe(1);
    expect((await getDevice(g, creds.deviceId)).connected).toBe(false);
  });

  it('keeps a phone that answers late but within pongTimeoutMs', async () => {
    const g = await t.gateway({ timings: { pingIntervalMs: 40, pongTimeoutMs: 400 } });
    const creds = await pairCredentials(g);
    // Answered from the upgrade on: an unanswered first ping, before the welcome, would drop the phone.
    const phone = await t.raw(g, creds.deviceToken, false, { autoPong: false });
    let pongs = 0;
    phone.ws.on('ping', (data) => {
      setTimeout(() => {
        phone.ws.pong(data);
        pongs += 1;
      }, 100);
    });
    await phone.hello();
    await until(async () => pongs, (n) => n >= 3, { what: 'three late pongs' });
    const device = await getDevice(g, creds.deviceId);
    expect(device.connected).toBe(true);
    expect(device.latencyMs).toBeGreaterThanOrEqual(90);
  });

  it('counts a ping of the phone (checking that the gateway is there) as a sign of life', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const before = (await getDevice(g, creds.deviceId)).lastSeenAt;
    const pong = new Promise((resolve) => phone.ws.once('pong', resolve));
    await until(async () => Date.now(), (now) => now > Date.parse(before!) + 5, { what: 'a later millisecond' });
    phone.ws.ping();
    await pong;
    expect(Date.parse((await getDevice(g, creds.deviceId)).lastSeenAt!)).toBeGreaterThan(Date.parse(before!));
  });

  it('closes phone sockets with 1001 when the gateway stops, and the stop raises no error', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await RawPhone.connect(g, creds.deviceToken);
    const rejections: unknown[] = [];
    const record = (reason: unknown): void => {
      rejections.push(reason);
    };
    process.on('unhandledRejection', record);
    try {
      await g.stop();
      expect((await phone.closed).code).toBe(1001);
      // Let rejections of work started during the stop surface (no timer: one turn of the event loop).
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(rejections.map((r) => (r instanceof Error ? r.stack : String(r)))).toEqual([]);
  });
});


describe('a phone that floods the gateway', () => {
  it('gets the first ten refused messages answered and logged, the rest only counted and the count logged at close', async () => {
    const g = await t.gateway({ captureLogs: true });
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    for (let i = 0; i < 5000; i++) phone.sendText('x');
    // Messages are handled in order: once this event is acknowledged, every refusal before it is done.
    const event = phoneEvent('call.ringing', 'native-flood', { direction: 'incoming', remoteNumber: '+4930100' });
    await phone.event(event);
    const errors = phone.messages.filter((m) => m.type === 'error');
    expect(errors).toHaveLength(10);
    expect(errors[9]).toMatchObject({ code: 'BAD_MESSAGE', message: expect.stringContaining('later ones are counted, not answered') });
    expect(g.logs.filter((line) => line.includes('bad phone message'))).toHaveLength(10);

    await phone.close();
    const closed = await until(
      () => Promise.resolve(g.logs.find((line) => line.includes('phone disconnected'))),
      (line) => line !== undefined,
      { what: 'the disconnect log line' },
    );
    expect(JSON.parse(closed!)).toMatchObject({ deviceId: creds.deviceId, badMessages: 5000 });
  });
});
