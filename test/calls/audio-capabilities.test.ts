import { describe, expect, it } from 'vitest';
import { until, getDevice, pairCredentials, testScope } from '../helpers/phones.js';

const t = testScope();

const LISTEN_ONLY = { capture: true, inject: false, method: 'voice_downlink', sampleRate: 48000 };

/** health.audioCapabilities, extension 1.2 of the phone protocol (docs/phone-protocol.md). */
describe('health.audioCapabilities', () => {
  it('shows what the phone can do with call audio on the device, alone and in the list', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { health: { audio: 'running', audioCapabilities: LISTEN_ONLY } });
    const device = await until(() => getDevice(g, sim.deviceId!), (d) => d.health?.audioCapabilities !== undefined);
    expect(device.health).toMatchObject({ audio: 'running', audioCapabilities: LISTEN_ONLY });
    const list = await g.api<{ devices: Array<{ id: string; health: Record<string, unknown> | null }> }>('GET', '/v1/devices');
    expect(list.body.devices.find((d) => d.id === sim.deviceId)?.health?.['audioCapabilities']).toEqual(LISTEN_ONLY);

    // The helper died: the phone says stopped and still tells what the helper could do.
    sim.setHealth({ audio: 'stopped' });
    const stopped = await until(() => getDevice(g, sim.deviceId!), (d) => d.health?.audio === 'stopped');
    expect(stopped.health?.audioCapabilities).toEqual(LISTEN_ONLY);
  });

  it('is optional (phones that predate it) and takes a method this gateway does not know yet', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    phone.send({ type: 'health', health: { audio: 'pairing_required', battery: 60 } });
    const plain = await until(() => getDevice(g, creds.deviceId), (d) => d.health?.battery === 60);
    expect(plain.health).not.toHaveProperty('audioCapabilities');

    const future = { capture: true, inject: true, method: 'some_later_api' };
    phone.send({ type: 'health', health: { audio: 'running', battery: 61, audioCapabilities: future } });
    const device = await until(() => getDevice(g, creds.deviceId), (d) => d.health?.battery === 61);
    expect(device.health?.audioCapabilities).toEqual(future);
  });

  it('refuses a malformed one with BAD_MESSAGE and keeps the previous report', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    phone.send({ type: 'health', health: { battery: 70, audio: 'running', audioCapabilities: LISTEN_ONLY } });
    await until(() => getDevice(g, creds.deviceId), (d) => d.health?.battery === 70);
    const bad = [
      { ...LISTEN_ONLY, sampleRate: 96000 },
      { ...LISTEN_ONLY, method: 'Voice Downlink' },
      { capture: true, method: 'voice_downlink' },
      { ...LISTEN_ONLY, inject: 'no' },
    ];
    const errors = () => phone.messages.filter((m) => m.type === 'error');
    for (const [i, audioCapabilities] of bad.entries()) {
      phone.send({ type: 'health', health: { battery: 71, audioCapabilities } });
      await phone.next(() => errors().length > i);
    }
    expect(errors().map((e) => e['code'])).toEqual(['BAD_MESSAGE', 'BAD_MESSAGE', 'BAD_MESSAGE', 'BAD_MESSAGE']);
    expect((await getDevice(g, creds.deviceId)).health).toMatchObject({ battery: 70, audioCapabilities: LISTEN_ONLY });
  });

  it('is described in the OpenAPI document of the device', async () => {
    const g = await t.gateway();
    const doc = (await g.api<{ components: { schemas: Record<string, { properties?: Record<string, { required?: string[]; properties?: Record<string, unknown> }> }> } }>('GET', '/openapi.json', undefined, { key: null })).body;
    const caps = doc.components.schemas['DeviceHealth']?.properties?.['audioCapabilities'];
    expect(caps?.required?.sort()).toEqual(['capture', 'inject', 'method']);
    expect(Object.keys(caps?.properties ?? {}).sort()).toEqual(['capture', 'inject', 'method', 'sampleRate']);
  });
});
