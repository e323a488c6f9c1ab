import { describe, expect, it } from 'vitest';
import { callInState, until, getDevice, getEvents, pairingCode, show, testScope, type Call, type ErrorBody } from '../helpers/phones.js';
import { skipAndroid } from './support.js';
import { JvmPhone } from './jvm-phone.js';

/**
 * The SIM of a call (phone protocol extension 1.4) through the Android app's core on the host JVM,
 * whose simulated Telecom has two SIM accounts, against a real gateway.
 */
describe.skipIf(skipAndroid)("the app's core chooses the SIM", () => {
  const t = testScope();

  async function dualSim() {
    const g = await t.gateway();
    const phone = t.track(await JvmPhone.start({ url: g.url, code: await pairingCode(g), args: ['--ring-ms', '30'] }));
    const deviceId = (await phone.connected(10_000))['deviceId'] as string;
    const device = await until(() => getDevice(g, deviceId), (d) => d.health?.sims !== undefined, { what: 'the SIMs reported' });
    return { g, phone, deviceId, device };
  }

  it('reports its two SIMs, dials from the slot asked for and refuses one with no usable SIM', async () => {
    const { g, phone, deviceId, device } = await dualSim();
    expect(device.health?.sims).toEqual([
      { slot: 0, carrier: 'Simulated Carrier', defaultForCalls: true, usable: true },
      { slot: 1, carrier: 'Second Carrier', defaultForCalls: false, usable: true },
    ]);
    const res = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId, to: '+15550100', sim: 1 });
    expect(res.status, show(res)).toBe(202);
    await callInState(g, res.body.call.id, 'active');
    expect((await phone.request('selections'))['selections']).toMatch(/ sim-1\]$/);
    await g.api('POST', `/v1/calls/${res.body.call.id}/hangup`);
    await callInState(g, res.body.call.id, 'ended');

    // The second SIM goes between two health reports: the phone refuses, the call fails with the code.
    await phone.request('simUsable', { slot: 1, usable: false });
    const refused = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId, to: '+15550100', sim: 1 });
    expect(refused.status, show(refused)).toBe(409);
    expect(refused.body.error.code).toBe('SIM_UNAVAILABLE');
  });

  it('"ask every time": the call passes select_phone_account, takes the suggested SIM and connects', async () => {
    const { g, phone, deviceId } = await dualSim();
    await phone.request('defaultSim', { slot: -1 });
    await phone.request('suggestedSim', { slot: 1 });
    const res = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId, to: '+15550100' });
    expect(res.status, show(res)).toBe(202);
    await callInState(g, res.body.call.id, 'active');
    const events = (await getEvents(g, res.body.call.id)).map((e) => e.event);
    expect(events).toContain('call.select_phone_account');
    expect(events.indexOf('call.select_phone_account')).toBeLessThan(events.indexOf('call.dialing'));
    expect((await phone.request('selections'))['selections']).toMatch(/ sim-1\]$/);
  });
});
