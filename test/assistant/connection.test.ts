import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { until, getCall } from '../helpers/phones.js';
import { agentInfo, KEY, rig, testScope, type AssistantCallInfo } from './support.js';

const scope = testScope();

interface ConnectionTest {
  ok: boolean;
  message: string;
  kind?: string;
  host: string;
  model: string;
  durationMs: number;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the connection to the voice model, in plain words (issue 26, point 2)', () => {
  it('"Test the connection" opens a session with the stored settings and closes it', async () => {
    const r = await rig(scope);
    const res = await r.gateway.api<ConnectionTest>('POST', '/v1/agent/test');
    expect(res.status, res.text).toBe(200);
    const host = new URL(r.fake.url).host;
    expect(res.body).toMatchObject({ ok: true, host, message: `The assistant reached the voice model at ${host}: it accepted the key and set up a session with ${res.body.model}` });
    expect(res.body).not.toHaveProperty('kind');
    expect(r.fake.requests).toHaveLength(1);
    await r.fake.waitForEvent('session.update');
    expect(res.text).not.toContain(KEY);
    // Signed-out: refused like every other route.
    expect((await r.gateway.api('POST', '/v1/agent/test', undefined, { key: null })).status).toBe(401);
  });

  it('says the key was refused (401), never echoing it', async () => {
    const wrong = 'sk-wrong-key-9876543210ZYXWVU';
    const r = await rig(scope, { key: wrong });
    const res = await r.gateway.api<ConnectionTest>('POST', '/v1/agent/test');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ ok: false, kind: 'key_refused' });
    expect(res.body.message).toBe(`The assistant could not reach the voice model at ${new URL(r.fake.url).host}: it refused the API key (HTTP 401): check the key in Settings, under Assistant model`);
    expect(res.text).not.toContain(wrong);
  });

  it('says the connection was refused, on the test and on a call handed to the assistant: the call rings on and its timeline says why', async () => {
    const port = await closedPort();
    const r = await rig(scope, { env: { ASSISTANT_REALTIME_URL: `ws://127.0.0.1:${port}/v1/realtime` } });
    const plain = `The assistant could not reach the voice model at 127.0.0.1:${port}: the connection was refused`;
    const test = await r.gateway.api<ConnectionTest>('POST', '/v1/agent/test');
    expect(test.body).toMatchObject({ ok: false, kind: 'refused', message: plain });

    const callId = await r.phone.ringIncoming('+4915100000031');
    const res = await r.gateway.api<AssistantCallInfo>('POST', `/v1/calls/${callId}/agent`);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ status: 'error', error: plain });
    expect(res.text).not.toContain('ECONNREFUSED');
    expect((await getCall(r.gateway, callId)).state).toBe('ringing');
    expect((await agentInfo(r.gateway, callId)).error).toBe(plain);
    type Events = { events: Array<{ event: string; payload: Record<string, unknown> }> };
    const { events } = await until(
      async () => (await r.gateway.api<Events>('GET', `/v1/calls/${callId}/events`)).body,
      (b) => b.events.some((e) => e.event === 'gateway.assistant_failed'),
      { what: 'the failure on the timeline' },
    );
    expect(events.filter((e) => e.event === 'gateway.assistant_failed').map((e) => e.payload)).toEqual([{ reason: plain, kind: 'refused', source: 'gateway' }]);
    // The timeline's own state is untouched: the call still rings for a person.
    expect(events.map((e) => e.event)).toEqual(['call.ringing', 'gateway.assistant_failed']);
  });
});
