import { describe, expect, it } from 'vitest';
import { pairCredentials, phoneEvent, show, testScope, type Call, type ErrorBody } from '../helpers/phones.js';

const t = testScope();

/** JSON text of an array nested `depth` deep: small as text, too deep for JSON.stringify once parsed. */
const deeplyNested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('the size of JSON objects a client or a phone hands the gateway', () => {
  it('refuses call metadata or stream parameters over 16 KiB, or nested too deep to store, with 400', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g);
    const start = `{"deviceId":${JSON.stringify(phone.deviceId)},"to":"+15550100",`;
    const cases: Array<[string, string]> = [
      ['body.metadata', `${start}"metadata":${JSON.stringify({ note: 'x'.repeat(17 * 1024) })}}`],
      ['body.metadata', `${start}"metadata":{"x":${deeplyNested(100_000)}}}`],
      ['body.stream.parameters', `${start}"stream":${JSON.stringify({ url: 'ws://127.0.0.1:9/agent', parameters: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 'v'.repeat(500)])) })}}`],
    ];
    for (const [path, raw] of cases) {
      const res = await g.api<ErrorBody>('POST', '/v1/calls', undefined, { raw });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.issues?.map((i) => i.path)).toContain(path);
    }
    // Nothing was stored, and the phone is free for a call with metadata of a sane size.
    expect((await g.api<{ calls: Call[] }>('GET', '/v1/calls')).body.calls).toEqual([]);
    const ok = await g.api('POST', '/v1/calls', { deviceId: phone.deviceId, to: '+15550100', metadata: { order: 42, note: 'x'.repeat(1000) } });
    expect(ok.status, show(ok)).toBe(202);
  });

  it('answers a phone event whose payload is too large with BAD_MESSAGE, storing no half call', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const ringing = phoneEvent('call.ringing', 'native-deep', { direction: 'incoming', remoteNumber: '+4930100' });
    phone.sendText(JSON.stringify(ringing).replace('"payload":{}', `"payload":{"x":${deeplyNested(100_000)}}`));
    const refusal = await phone.next((m) => m.type === 'error');
    expect(refusal).toMatchObject({ code: 'BAD_MESSAGE' });
    expect(phone.acksOf(ringing.eventId)).toEqual([]);
    expect((await g.api<{ calls: Call[] }>('GET', '/v1/calls')).body.calls).toEqual([]);
    // The same ring with a normal payload becomes a call.
    const { callId } = await phone.event(phoneEvent('call.ringing', 'native-deep', { direction: 'incoming', remoteNumber: '+4930100' }));
    expect(typeof callId).toBe('string');
  });
});
