import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { callInState, until, getDeliveries, pairCredentials, phoneEvent, show, testScope, type Delivery, type ErrorBody, type RawPhone } from '../helpers/phones.js';
import { agent, placeCall, streamInfo } from '../streams/helpers.js';
import { agentInfo, rig } from '../assistant/support.js';

const t = testScope();
/** Loopback closed, so names and spellings that reach this machine can be tried against the test's own servers. */
const LOOPBACK_DENIED = { OUTBOUND_DENY: '127.0.0.0/8,::1' };

/** Rings a call whose webhooks go to `url` (the default webhook), and returns its first delivery row. */
async function firstAttemptTo(g: TestGateway, phone: RawPhone, url: string): Promise<Delivery> {
  const set = await g.api('PUT', '/v1/settings', { webhookUrl: url });
  expect(set.status, show(set)).toBe(200);
  const ack = await phone.event(phoneEvent('call.ringing', `native-${randomUUID()}`, { direction: 'incoming', remoteNumber: '+4930100' }));
  const callId = String(ack.callId);
  const rows = await until(() => getDeliveries(g, `?callId=${callId}`), (d) => d.length > 0, { what: `an attempt to ${url}` });
  return rows[rows.length - 1]!;
}

describe('outbound address rules (OUTBOUND_DENY, OUTBOUND_ALLOW)', () => {
  it('records a webhook attempt to a metadata address, in any spelling, as refused', async () => {
    const g = await t.gateway();
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);
    const cases = [
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', '169.254.0.0/16'],
      ['http://0xa9fea9fe/hook', '169.254.169.254', '169.254.0.0/16'],
      ['http://2852039166/hook', '169.254.169.254', '169.254.0.0/16'],
      ['http://[::ffff:169.254.169.254]/hook', '169.254.169.254', '169.254.0.0/16'],
      ['http://[fd00:ec2::254]/hook', 'fd00:ec2::254', 'fd00:ec2::254/128'],
    ] as const;
    for (const [url, address, range] of cases) {
      const row = await firstAttemptTo(g, phone, url);
      expect(row, url).toMatchObject({ url, attempt: 1, ok: false });
      expect(row.error, url).toContain(`${address} is in ${range}, which OUTBOUND_DENY refuses`);
    }
  });

  it('checks a name on the address it resolves to, and spellings of a denied address, without connecting', async () => {
    const g = await t.gateway({ env: LOOPBACK_DENIED });
    const hook = await t.receiver();
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);
    const port = new URL(hook.url).port;
    for (const host of ['localhost', '0x7f000001', '127.1', '[::ffff:127.0.0.1]']) {
      const row = await firstAttemptTo(g, phone, `http://${host}:${port}/hook`);
      expect(row.error, host).toMatch(/^refused to connect to \S+: 127\.0\.0\.1 is in 127\.0\.0\.0\/8, which OUTBOUND_DENY refuses/);
    }
    expect(hook.requests).toEqual([]);
  });

  it('never dials the unspecified addresses, which reach loopback past a loopback deny rule', async () => {
    const g = await t.gateway({ env: LOOPBACK_DENIED });
    const hook = await t.receiver();
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);
    const port = new URL(hook.url).port;
    for (const [host, address] of [['0.0.0.0', '0.0.0.0'], ['0', '0.0.0.0'], ['[::]', '::'], ['[::ffff:0.0.0.0]', '0.0.0.0']] as const) {
      const row = await firstAttemptTo(g, phone, `http://${host}:${port}/hook`);
      expect(row.error, host).toMatch(new RegExp(`^refused to connect to \\S+: ${address.replace(/\./g, '\\.')} is an unspecified address`));
    }
    expect(hook.requests).toEqual([]);
  });

  it('lets OUTBOUND_ALLOW open an address that a deny range holds', async () => {
    const g = await t.gateway({ env: { ...LOOPBACK_DENIED, OUTBOUND_ALLOW: '127.0.0.1' } });
    const hook = await t.receiver();
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);
    const row = await firstAttemptTo(g, phone, hook.url.replace('127.0.0.1', 'localhost'));
    expect(row).toMatchObject({ ok: true });
    expect(hook.requests).toHaveLength(1);
  });

  it('ends a stream to a refused address in status error with the reason, and hangs up the call', async () => {
    const g = await t.gateway({ env: LOOPBACK_DENIED });
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const a = await agent(t);
    const url = a.url.replace('127.0.0.1', 'localhost');
    const { call } = await placeCall(g, phone, { stream: { url } });
    await callInState(g, call.id, 'ended');
    const info = await streamInfo(g, call.id);
    expect(info).toMatchObject({ stream: { url }, status: 'error' });
    expect(info.error).toMatch(/^refused to connect to localhost: 127\.0\.0\.1 is in 127\.0\.0\.0\/8/);
    expect(a.count).toBe(0);

    const phone2 = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const metadata = await placeCall(g, phone2, { stream: { url: 'ws://[::ffff:a9fe:a9fe]/agent' } });
    await callInState(g, metadata.call.id, 'ended');
    expect((await streamInfo(g, metadata.call.id)).error).toContain('169.254.169.254 is in 169.254.0.0/16');
  });

  it("reports the assistant's status error with the reason when the model's address is refused", async () => {
    const r = await rig(t, { env: { OUTBOUND_DENY: '127.0.0.1' } });
    const callId = await r.phone.ringIncoming('+4915100000009');
    const res = await r.gateway.api<{ status: string; error?: string }>('POST', `/v1/calls/${callId}/agent`);
    expect(res.status, show(res)).toBe(202);
    expect(res.body.status).toBe('error');
    // Plain words (issue 26), still naming the address, the range and the variable that refuses it.
    expect(res.body.error).toMatch(/^The assistant could not reach the voice model at 127\.0\.0\.1:\d+: the gateway's outbound rules do not allow that address: 127\.0\.0\.1 is in 127\.0\.0\.1\/32, which OUTBOUND_DENY refuses/);
    expect((await agentInfo(r.gateway, callId)).status).toBe('error');
    expect(r.fake.requests).toHaveLength(0);
  });
});

describe('URLs with user:password@', () => {
  it('are refused with 400 wherever a webhook, stream or agent URL is configured, and not shown back', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const attempts: Array<[string, string, unknown]> = [
      ['POST', '/v1/calls', { deviceId: sim.deviceId, to: '+15550100', webhookUrl: 'https://alice:s3cret-pw@hooks.example/in' }],
      ['POST', '/v1/calls', { deviceId: sim.deviceId, to: '+15550100', stream: { url: 'wss://alice:s3cret-pw@agent.example/voice' } }],
      ['POST', '/v1/calls/call_unknown/stream', { url: 'ws://alice:s3cret-pw@127.0.0.1:9/voice' }],
      ['PUT', '/v1/settings', { webhookUrl: 'http://:s3cret-pw@hooks.example/in' }],
      ['PUT', '/v1/settings', { incomingStreamUrl: 'wss://alice@agent.example/in' }],
    ];
    for (const [method, path, body] of attempts) {
      const res = await g.api<ErrorBody>(method, path, body);
      expect(res.status, `${method} ${path}: ${show(res)}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.issues?.[0]?.message).toMatch(/must not contain a user name or password/);
      expect(res.text).not.toContain('s3cret-pw');
    }
    expect((await g.api('GET', '/v1/calls')).body.calls).toEqual([]);
    expect((await g.api('GET', '/v1/settings')).body.settings).toMatchObject({ webhookUrl: null, incomingStreamUrl: null });
  });
});
