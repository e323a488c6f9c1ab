import { describe, expect, it } from 'vitest';
import type { SimInfo } from '../../src/simulator/index.js';
import { callInState, until, getDevice, getEvents, pairCredentials, show, testScope, type ErrorBody } from '../helpers/phones.js';

const t = testScope();

const TWO_SIMS: SimInfo[] = [
  { slot: 0, carrier: 'Telekom', number: '+4915112345678', defaultForCalls: true, usable: true },
  { slot: 1, carrier: 'Vodafone', defaultForCalls: false, usable: true },
];

/** The phone's SIMs and `sim` of POST /v1/calls: extension 1.4 of docs/phone-protocol.md, docs/api.md. */
describe('choosing the SIM of a call', () => {
  async function dualSimPhone(sims: SimInfo[] = TWO_SIMS) {
    const g = await t.gateway();
    const phone = await t.phone(g, { health: { sims } });
    await until(() => getDevice(g, phone.deviceId!), (d) => d.health?.sims !== undefined, { what: 'the SIMs reported' });
    return { g, phone };
  }

  it('shows the SIMs the phone reported on the device, alone and in the list', async () => {
    const { g, phone } = await dualSimPhone();
    expect((await getDevice(g, phone.deviceId!)).health?.sims).toEqual(TWO_SIMS);
    const list = await g.api<{ devices: Array<{ id: string; health: { sims?: unknown } | null }> }>('GET', '/v1/devices');
    expect(list.body.devices.find((d) => d.id === phone.deviceId)?.health?.sims).toEqual(TWO_SIMS);

    // The latest report wins: the second SIM lost its network.
    const degraded = [TWO_SIMS[0]!, { ...TWO_SIMS[1]!, usable: false }];
    phone.setHealth({ sims: degraded });
    await until(() => getDevice(g, phone.deviceId!), (d) => d.health?.sims?.[1]?.usable === false);
  });

  it('dials from the slot asked for; the slot reaches the phone and comes back in the dialing event', async () => {
    const { g, phone } = await dualSimPhone();
    const res = await g.api<{ call: { id: string }; command: { payload: Record<string, unknown> } }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+4915199999999', sim: 1 });
    expect(res.status, show(res)).toBe(202);
    expect(res.body.command.payload).toEqual({ to: '+4915199999999', sim: 1 });
    expect(phone.commands.at(-1)?.payload).toEqual({ to: '+4915199999999', sim: 1 });
    await callInState(g, res.body.call.id, 'active');
    const dialing = (await getEvents(g, res.body.call.id)).find((e) => e.event === 'call.dialing');
    expect(dialing?.payload).toMatchObject({ sim: 1 });
  });

  it('without sim, the phone uses its default SIM and says which', async () => {
    const { g, phone } = await dualSimPhone([{ ...TWO_SIMS[0]!, defaultForCalls: false }, { ...TWO_SIMS[1]!, defaultForCalls: true }]);
    const res = await g.api<{ call: { id: string }; command: { payload: Record<string, unknown> } }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+4915199999999' });
    expect(res.status, show(res)).toBe(202);
    expect(res.body.command.payload).toEqual({ to: '+4915199999999' });
    await callInState(g, res.body.call.id, 'active');
    expect((await getEvents(g, res.body.call.id)).find((e) => e.event === 'call.dialing')?.payload).toMatchObject({ sim: 1 });
  });

  it('answers 400 in the contract shape for a slot that is not a small whole number', async () => {
    const { g, phone } = await dualSimPhone();
    for (const sim of [-1, 8, 1.5, '1', null, true]) {
      const res = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+4915199999999', sim });
      expect(res.status, `${JSON.stringify(sim)}: ${show(res)}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.issues?.[0]?.path).toBe('body.sim');
    }
    expect(phone.commands).toHaveLength(0);
  });

  it('answers 409 SIM_UNAVAILABLE before dialing when the slot has no usable SIM', async () => {
    const { g, phone } = await dualSimPhone([TWO_SIMS[0]!, { ...TWO_SIMS[1]!, usable: false }]);
    for (const sim of [1, 2]) {
      const res = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+4915199999999', sim });
      expect(res.status, show(res)).toBe(409);
      expect(res.body.error.code).toBe('SIM_UNAVAILABLE');
      expect(res.body.error.message).toContain(`slot ${sim}`);
    }
    expect(phone.commands).toHaveLength(0);
    const calls = await g.api<{ calls: unknown[] }>('GET', `/v1/calls?deviceId=${phone.deviceId}`);
    expect(calls.body.calls).toHaveLength(0);
  });

  it('a SIM gone since the last report: the phone refuses the dial and the call fails with the cause', async () => {
    const { g, phone } = await dualSimPhone();
    phone.setHealth({ sims: [TWO_SIMS[0]!, { ...TWO_SIMS[1]!, usable: false }] }, { report: false });
    const res = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+4915199999999', sim: 1 });
    expect(res.status, show(res)).toBe(409);
    expect(res.body.error.code).toBe('SIM_UNAVAILABLE');
    const calls = await g.api<{ calls: Array<{ id: string; state: string; endCause?: string; endReason?: string }> }>('GET', `/v1/calls?deviceId=${phone.deviceId}`);
    expect(calls.body.calls).toHaveLength(1);
    expect(calls.body.calls[0]).toMatchObject({ state: 'failed', endCause: 'failed' });
    expect(calls.body.calls[0]?.endReason).toContain('SIM_UNAVAILABLE');
  });

  it('refuses sim with 409 SIM_NOT_SUPPORTED for a phone that never reported its SIMs, and dials without it', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g);
    await until(() => getDevice(g, phone.deviceId!), (d) => d.health?.reportedAt !== undefined);
    const res = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+4915199999999', sim: 0 });
    expect(res.status, show(res)).toBe(409);
    expect(res.body.error.code).toBe('SIM_NOT_SUPPORTED');
    expect(phone.commands).toHaveLength(0);
    const plain = await g.api<{ command: { payload: Record<string, unknown> } }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+4915199999999' });
    expect(plain.status, show(plain)).toBe(202);
    expect(plain.body.command.payload).toEqual({ to: '+4915199999999' });
  });

  it('refuses a malformed SIM list with BAD_MESSAGE and keeps the previous report', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const raw = await t.raw(g, creds.deviceToken);
    raw.send({ type: 'health', health: { battery: 50, sims: TWO_SIMS } });
    await until(() => getDevice(g, creds.deviceId), (d) => d.health?.battery === 50);
    const bad = [[{ slot: 0, defaultForCalls: true, usable: true }, { slot: 0, defaultForCalls: false, usable: true }], [{ slot: 9, defaultForCalls: true, usable: true }], [{ slot: 0, usable: true }]];
    const errors = () => raw.messages.filter((m) => m.type === 'error');
    for (const [i, sims] of bad.entries()) {
      raw.send({ type: 'health', health: { battery: 51, sims } });
      await raw.next(() => errors().length > i);
    }
    expect(errors().map((e) => e['code'])).toEqual(['BAD_MESSAGE', 'BAD_MESSAGE', 'BAD_MESSAGE']);
    expect((await getDevice(g, creds.deviceId)).health).toMatchObject({ battery: 50, sims: TWO_SIMS });
  });

  it('is described in the OpenAPI document', async () => {
    const g = await t.gateway();
    type Schema = { properties?: Record<string, { items?: { required?: string[] }; minimum?: number; maximum?: number }> };
    const doc = (await g.api<{ components: { schemas: Record<string, Schema> } }>('GET', '/openapi.json', undefined, { key: null })).body;
    expect(doc.components.schemas['DeviceHealth']?.properties?.['sims']?.items?.required?.sort()).toEqual(['defaultForCalls', 'slot', 'usable']);
    expect(doc.components.schemas['PlaceCall']?.properties?.['sim']).toMatchObject({ minimum: 0, maximum: 7 });
  });
});
