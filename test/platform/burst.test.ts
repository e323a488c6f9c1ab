import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pairCredentials, phoneEvent, testScope } from '../helpers/phones.js';

const t = testScope();

describe('a burst of phone events', () => {
  it('does not hold REST requests until it has been applied', async () => {
    const g = await t.gateway();
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);
    const native = `native-${randomUUID()}`;
    const burst = [phoneEvent('call.ringing', native, { direction: 'incoming', remoteNumber: '+4930100' })];
    for (let i = 0; i < 400; i++) burst.push(phoneEvent(i % 2 ? 'call.holding' : 'call.active', native));
    const last = burst[burst.length - 1]!.eventId;

    // The phone's first event is in; the rest arrive while a REST request waits for its answer.
    await phone.event(burst[0]!);
    for (const e of burst.slice(1)) phone.send(e);
    const res = await g.api('GET', '/v1/calls?limit=1');
    expect(res.status).toBe(200);
    const appliedMeanwhile = phone.messages.filter((m) => m.type === 'event.ack').length - 1;
    await phone.ack(last, 1, 20_000);
    // The request is answered between the events, not after a whole socket read of them.
    expect(appliedMeanwhile).toBeLessThan(burst.length / 4);
  });
});
