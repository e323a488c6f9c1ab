import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { callInState, getEvents, pairingCode, show, testScope, type Call, type Scope } from '../helpers/phones.js';
import { skipAndroid } from './support.js';
import { JvmPhone } from './jvm-phone.js';


/** What a test needs of a phone, whichever implementation plays it. */
interface AnyPhone {
  deviceId: string;
  /** Rings an incoming call; resolves with the callId the gateway named. */
  ring(from: string): Promise<string>;
  remoteHangup(): Promise<void>;
  /** How the next dials end. */
  dialsEnd(outcome: 'answer' | 'busy'): Promise<void>;
}

const phones: Array<[string, (t: Scope, g: TestGateway) => Promise<AnyPhone>]> = [
  [
    'the Node simulator',
    async (t, g) => {
      const sim = await t.phone(g, { dial: { outcome: 'answer', ringMs: 30 } });
      return {
        deviceId: sim.deviceId!,
        ring: (from) => sim.ringIncoming(from),
        remoteHangup: async () => sim.remoteHangup(),
        dialsEnd: async (outcome) => {
          sim.dial = { ...sim.dial, outcome };
        },
      };
    },
  ],
  [
    "the Android app's core",
    async (t, g) => {
      const phone = t.track(await JvmPhone.start({ url: g.url, code: await pairingCode(g), args: ['--ring-ms', '30'] }));
      const deviceId = (await phone.connected())['deviceId'] as string;
      return {
        deviceId,
        ring: (from) => phone.ringIncoming(from),
        remoteHangup: async () => void (await phone.request('remoteHangup')),
        dialsEnd: async (outcome) => void (await phone.request('outcome', { outcome, ringMs: 30 })),
      };
    },
  ],
];

/**
 * The simulator and the app must be interchangeable: the same REST calls give the same states,
 * causes and spec events through either phone (the app's timeline adds Telecom's intermediate
 * steps, which move no state).
 */
describe.skipIf(skipAndroid)('either phone', () => {
  const t = testScope();
  const spine = (events: Array<{ event: string }>): string[] =>
    events.map((e) => e.event).filter((e) => e !== 'call.connecting' && e !== 'call.disconnecting');

  async function post(g: TestGateway, path: string, body?: unknown): Promise<{ call: Call }> {
    const res = await g.api<{ call: Call }>('POST', path, body);
    expect(res.status, show(res)).toBe(202);
    return res.body;
  }

  describe.each(phones)('%s', (_name, makePhone) => {
    it('an outgoing call: dialing, active, held, active, ended by the gateway', async () => {
      const g = await t.gateway();
      const phone = await makePhone(t, g);
      const { call } = await post(g, '/v1/calls', { deviceId: phone.deviceId, to: '+15550100' });
      await callInState(g, call.id, 'active');
      await post(g, `/v1/calls/${call.id}/hold`);
      await callInState(g, call.id, 'held');
      await post(g, `/v1/calls/${call.id}/unhold`);
      await callInState(g, call.id, 'active');
      await post(g, `/v1/calls/${call.id}/hangup`);
      await callInState(g, call.id, 'ended');
      const events = await getEvents(g, call.id);
      expect(spine(events)).toEqual(['call.dialing', 'call.active', 'call.holding', 'call.active', 'call.disconnected']);
      expect(events.at(-1)?.payload).toMatchObject({ cause: 'local' });
    });

    it('an incoming call: ringing, answered, ended by the caller; a busy callee', async () => {
      const g = await t.gateway();
      const phone = await makePhone(t, g);
      const callId = await phone.ring('+15550111');
      const ringing = await callInState(g, callId, 'ringing');
      expect(ringing).toMatchObject({ direction: 'incoming', remoteNumber: '+15550111', deviceId: phone.deviceId });
      await post(g, `/v1/calls/${callId}/answer`);
      await callInState(g, callId, 'active');
      await phone.remoteHangup();
      await callInState(g, callId, 'ended');
      const events = await getEvents(g, callId);
      expect(spine(events)).toEqual(['call.ringing', 'call.active', 'call.disconnected']);
      expect(events.at(-1)?.payload).toMatchObject({ cause: 'remote' });

      await phone.dialsEnd('busy');
      const { call } = await post(g, '/v1/calls', { deviceId: phone.deviceId, to: '+15550100' });
      await callInState(g, call.id, 'ended');
      expect((await getEvents(g, call.id)).at(-1)?.payload).toMatchObject({ cause: 'busy' });
    });

    it('a second dial while a call is in progress is refused as busy', async () => {
      const g = await t.gateway();
      const phone = await makePhone(t, g);
      const callId = await phone.ring('+15550112');
      await callInState(g, callId, 'ringing');
      const res = await g.api<{ error: { code: string } }>('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+15550100' });
      expect(res.status, show(res)).toBe(409);
      expect(res.body.error.code).toBe('DEVICE_BUSY');
    });
  });
});
