import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { callInState, pairCredentials, phoneEvent, show, testScope, type Call, type ErrorBody } from '../helpers/phones.js';

const t = testScope();

interface Page {
  calls: Call[];
  nextBefore: string | null;
}

async function list(g: TestGateway, query: string): Promise<Page> {
  const res = await g.api<Page>('GET', `/v1/calls${query}`);
  expect(res.status, `${query}: ${show(res)}`).toBe(200);
  return res.body;
}

describe('why a call ended: endCause and endReason', () => {
  it('records the cause of each ending on the call, in the log and on the live change', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'busy', ringMs: 10, failReason: 'no service' } });
    const changes: Call[] = [];
    g.services.calls.on('change', ({ call }) => changes.push(call));
    const place = async (to: string): Promise<string> => {
      const res = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: sim.deviceId, to });
      expect(res.status, show(res)).toBe(202);
      return res.body.call.id;
    };

    const busy = await place('+4930111');
    expect(await callInState(g, busy, 'ended')).toMatchObject({ endCause: 'busy' });

    sim.dial = { outcome: 'no-answer', ringMs: 10, failReason: 'no service' };
    const missed = await place('+4930222');
    expect(await callInState(g, missed, 'ended')).toMatchObject({ endCause: 'missed' });

    sim.dial = { outcome: 'failed', ringMs: 10, failReason: 'no service' };
    const failed = await place('+4930333');
    expect(await callInState(g, failed, 'failed')).toMatchObject({ endCause: 'failed', endReason: 'no service' });

    sim.dial = { outcome: 'answer', ringMs: 10, failReason: 'no service' };
    const hungUpHere = await place('+4930444');
    await callInState(g, hungUpHere, 'active');
    expect((await g.api('POST', `/v1/calls/${hungUpHere}/hangup`)).status).toBe(202);
    expect(await callInState(g, hungUpHere, 'ended')).toMatchObject({ endCause: 'local' });

    const hungUpThere = await place('+4930555');
    await callInState(g, hungUpThere, 'active');
    sim.remoteHangup();
    expect(await callInState(g, hungUpThere, 'ended')).toMatchObject({ endCause: 'remote' });

    const declined = await sim.ringIncoming('+4930666');
    expect((await g.api('POST', `/v1/calls/${declined}/reject`)).status).toBe(202);
    expect(await callInState(g, declined, 'rejected')).toMatchObject({ endCause: 'rejected' });

    const page = await list(g, '');
    expect(page.calls.map((c) => [c.remoteNumber, c.endCause])).toEqual([
      ['+4930666', 'rejected'],
      ['+4930555', 'remote'],
      ['+4930444', 'local'],
      ['+4930333', 'failed'],
      ['+4930222', 'missed'],
      ['+4930111', 'busy'],
    ]);
    expect(changes.find((c) => c.id === busy && c.state === 'ended')).toMatchObject({ endCause: 'busy' });
    // A call that is not over has no cause.
    const open = await place('+4930777');
    expect((await callInState(g, open, 'active')).endCause).toBeUndefined();
  });

  it('names the gateway\'s reason when it ends a call itself, and takes an unknown cause as other', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const native = `native-${randomUUID()}`;
    const ring = await phone.event(phoneEvent('call.ringing', native, { direction: 'incoming', remoteNumber: '+4930888' }));
    await phone.event(phoneEvent('call.disconnected', native, { payload: { cause: 'meteor', reason: '  struck  ' } }));
    expect(await callInState(g, String(ring.callId), 'ended')).toMatchObject({ endCause: 'other', endReason: 'struck' });

    const second = `native-${randomUUID()}`;
    const ringing = await phone.event(phoneEvent('call.ringing', second, { direction: 'incoming', remoteNumber: '+4930999' }));
    expect((await g.api('DELETE', `/v1/devices/${creds.deviceId}`)).status).toBe(204);
    expect(await callInState(g, String(ringing.callId), 'ended')).toMatchObject({ endCause: 'other', endReason: 'the phone was removed' });
  });
});

describe('searching the call log: remoteNumber and after', () => {
  it('finds calls by part of their number, separators ignored on both sides, and pages through the matches', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const numbers = ['+49 151 2345678', '+49 30 1234567', '(0151) 234-5679', '+44 20 7946 0958', '+49 151 23456 00'];
    for (const number of numbers) {
      const native = `native-${randomUUID()}`;
      await phone.event(phoneEvent('call.ringing', native, { direction: 'incoming', remoteNumber: number }));
      await phone.event(phoneEvent('call.rejected', native));
    }

    const found = await list(g, `?remoteNumber=${encodeURIComponent('151 234')}`);
    expect(found.calls.map((c) => c.remoteNumber)).toEqual(['+49 151 23456 00', '(0151) 234-5679', '+49 151 2345678']);
    expect(found.nextBefore).toBeNull();

    const first = await list(g, `?remoteNumber=1512345&limit=2`);
    expect(first.calls.map((c) => c.remoteNumber)).toEqual(['+49 151 23456 00', '(0151) 234-5679']);
    const second = await list(g, `?remoteNumber=1512345&limit=2&before=${encodeURIComponent(first.nextBefore!)}`);
    expect(second.calls.map((c) => c.remoteNumber)).toEqual(['+49 151 2345678']);
    expect(second.nextBefore).toBeNull();

    expect((await list(g, '?remoteNumber=%2B44')).calls.map((c) => c.remoteNumber)).toEqual(['+44 20 7946 0958']);
    expect((await list(g, '?remoteNumber=999999')).calls).toEqual([]);
  });

  it('keeps calls created after `after`; with `before` a date range that pages like the spec', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const native = `native-${randomUUID()}`;
      const ack = await phone.event(phoneEvent('call.ringing', native, { direction: 'incoming', remoteNumber: `+4930${i}` }));
      await phone.event(phoneEvent('call.rejected', native));
      ids.push(String(ack.callId));
    }
    const all = (await list(g, '')).calls;
    const at = (id: string) => all.find((c) => c.id === id)!.createdAt;
    // The range (ids[1], ids[5]): strictly after the second call, strictly before the sixth.
    const range = `after=${encodeURIComponent(at(ids[1]!))}&before=${encodeURIComponent(at(ids[5]!))}`;
    const page1 = await list(g, `?${range}&limit=2`);
    expect(page1.calls.map((c) => c.id)).toEqual([ids[4], ids[3]]);
    expect(page1.nextBefore).toBe(at(ids[3]!));
    const page2 = await list(g, `?after=${encodeURIComponent(at(ids[1]!))}&before=${encodeURIComponent(page1.nextBefore!)}&limit=2`);
    expect(page2.calls.map((c) => c.id)).toEqual([ids[2]]);
    expect(page2.nextBefore).toBeNull();

    // Any ISO 8601 form, with an offset: a day in Berlin.
    const day = new Date(Date.parse(at(ids[0]!)) - 60_000).toISOString().replace('Z', '+00:00');
    expect((await list(g, `?after=${encodeURIComponent(day)}`)).calls).toHaveLength(6);
  });

  it('refuses searches that are no number and dates that are no dates, in plain words', async () => {
    const g = await t.gateway();
    const cases: Array<[string, string, string]> = [
      ['remoteNumber=Alice', 'query.remoteNumber', 'can hold only digits, +, *, #, the pauses , and ; and separators such as spaces'],
      ['remoteNumber=', 'query.remoteNumber', 'must not be empty'],
      [`remoteNumber=${'1'.repeat(65)}`, 'query.remoteNumber', 'must be at most 64 characters'],
      ['after=yesterday', 'query.after', 'must be a date and time such as 2026-11-20T12:00:00Z'],
    ];
    for (const [query, path, message] of cases) {
      const res = await g.api<ErrorBody>('GET', `/v1/calls?${query}`);
      expect(res.status, `${query}: ${show(res)}`).toBe(400);
      expect(res.body.error.issues, query).toEqual([expect.objectContaining({ path, message })]);
    }
  });

  it('documents both filters in the OpenAPI document', async () => {
    const g = await t.gateway();
    const doc = await g.api<{ paths: Record<string, { get: { parameters: Array<{ name: string; description?: string; schema: Record<string, unknown> }> } }> }>('GET', '/openapi.json', undefined, { key: null });
    const params = doc.body.paths['/v1/calls']!.get.parameters;
    expect(params.map((p) => p.name)).toEqual(['deviceId', 'state', 'direction', 'before', 'after', 'remoteNumber', 'limit']);
    expect(params.find((p) => p.name === 'after')!.schema).toMatchObject({ type: 'string', format: 'date-time' });
    expect(params.find((p) => p.name === 'remoteNumber')!.schema).toMatchObject({ type: 'string', maxLength: 64 });
  });
});
