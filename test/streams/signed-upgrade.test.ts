import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { TEST_API_KEY, type TestGateway } from '../helpers/gateway.js';
import { callInState, show, testScope } from '../helpers/phones.js';
import { agent, placeCall, type PeerSocket } from './helpers.js';

const t = testScope();

const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
const unixNow = (): number => Date.now() / 1000;

/** The upgrade request's headers as the verifying library takes them. */
function headersOf(req: IncomingMessage | undefined): Record<string, string> {
  if (!req) throw new Error('the agent kept no upgrade request');
  return Object.fromEntries(Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** What an agent does: the URL it was dialled at is the payload; it is no JSON, so the library must not parse it. */
function verify(secret: string, url: string, conn: PeerSocket): void {
  new Webhook(secret).verify(url, headersOf(conn.req), { jsonParse: false });
}

/** The upgrade is signed for `url` with `secret` (and nothing else), and carries no credential of its own. */
function expectSignedUpgrade(conn: PeerSocket, url: string, secret: string, dialled: { after: number; before: number }): void {
  const headers = headersOf(conn.req);
  expect(() => verify(secret, url, conn), JSON.stringify(headers)).not.toThrow();
  expect(() => verify(newSecret(), url, conn)).toThrow(WebhookVerificationError);
  expect(() => verify(secret, url.replace('/agent', '/other'), conn)).toThrow(WebhookVerificationError);
  expect(headers['webhook-id']).toMatch(/^upg_[0-9a-f]{32}$/);
  const timestamp = Number(headers['webhook-timestamp']);
  expect(timestamp).toBeGreaterThanOrEqual(Math.floor(dialled.after));
  expect(timestamp).toBeLessThanOrEqual(Math.ceil(dialled.before));
  expect(headers['user-agent']).toBe('voice-gateway/0.1.0');
  const text = JSON.stringify(headers);
  for (const value of [TEST_API_KEY, secret, secret.slice('whsec_'.length)]) expect(text).not.toContain(value);
}

async function rotateSecret(g: TestGateway): Promise<string> {
  const res = await g.api<{ secret: string }>('POST', '/v1/settings/webhook-secret');
  expect(res.status, show(res)).toBe(200);
  return res.body.secret;
}

describe('the WebSocket upgrade to an agent is signed with the webhook secret', () => {
  it('raw stream of POST /v1/calls: over the URL with its query, a fresh id per upgrade; the secret is never logged', async () => {
    const secret = newSecret();
    const g = await t.gateway({ env: { WEBHOOK_SECRET: secret }, captureLogs: true });
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const a = await agent(t);
    const url = `${a.url}?tenant=acme&lang=de`;

    const after = unixNow();
    const { call } = await placeCall(g, phone, { stream: { url } });
    const first = await a.connection(0);
    await first.message((m) => m.type === 'start');
    expectSignedUpgrade(first, url, secret, { after, before: unixNow() });
    expect(first.req?.url).toBe('/agent?tenant=acme&lang=de');
    expect(() => verify(secret, `${a.url}?tenant=acme&lang=en`, first), 'the query is signed too').toThrow(WebhookVerificationError);

    // The same stream attached again: a new upgrade with an id of its own.
    const res = await g.api('POST', `/v1/calls/${call.id}/stream`, { url });
    expect(res.status, show(res)).toBe(202);
    const second = await a.connection(1);
    await second.message((m) => m.type === 'start');
    expectSignedUpgrade(second, url, secret, { after, before: unixNow() });
    expect(headersOf(second.req)['webhook-id']).not.toBe(headersOf(first.req)['webhook-id']);
    expect(g.logs.join('\n')).not.toContain(secret.slice('whsec_'.length));
  });

  it('vendor stream attached with POST /v1/calls/{callId}/stream', async () => {
    const secret = newSecret();
    const g = await t.gateway({ env: { WEBHOOK_SECRET: secret } });
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const a = await agent(t);
    const { call } = await placeCall(g, phone);
    await callInState(g, call.id, 'active');

    const after = unixNow();
    const res = await g.api('POST', `/v1/calls/${call.id}/stream`, { url: a.url, format: 'vendor' });
    expect(res.status, show(res)).toBe(202);
    const conn = await a.connection();
    await conn.message((m) => m.event === 'start');
    expectSignedUpgrade(conn, a.url, secret, { after, before: unixNow() });
  });

  it('over the URL in its normal form: an agent at the root, given without a path, rebuilds it from the request line', async () => {
    const secret = newSecret();
    const g = await t.gateway({ env: { WEBHOOK_SECRET: secret } });
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const a = await agent(t, { pathname: '' });
    expect(a.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    await placeCall(g, phone, { stream: { url: a.url } });
    const conn = await a.connection();
    expect(conn.req?.url).toBe('/');
    // As docs/api.md shows it: the agent's own address and the path and query of the request.
    expect(() => verify(secret, `${a.url}${conn.req!.url!}`, conn)).not.toThrow();
  });

  it('incoming call streamed to incomingStreamUrl', async () => {
    const secret = newSecret();
    const g = await t.gateway({ env: { WEBHOOK_SECRET: secret }, timings: { incomingAutoStreamDelayMs: 50 } });
    const a = await agent(t);
    const url = `${a.url}?line=main`;
    const res = await g.api('PUT', '/v1/settings', { incomingStreamUrl: url, incomingStreamFormat: 'vendor' });
    expect(res.status, show(res)).toBe(200);
    const phone = await t.phone(g);

    const after = unixNow();
    await phone.ringIncoming('+15550177');
    const conn = await a.connection();
    await conn.message((m) => m.event === 'start');
    expectSignedUpgrade(conn, url, secret, { after, before: unixNow() });
  });

  it('a rotated secret signs the next upgrade', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const a = await agent(t);
    const url = `${a.url}?n=1`;
    const made = await rotateSecret(g);
    const after = unixNow();
    const { call } = await placeCall(g, phone, { stream: { url } });
    const first = await a.connection(0);
    await first.message((m) => m.type === 'start');
    expectSignedUpgrade(first, url, made, { after, before: unixNow() });

    const rotated = await rotateSecret(g);
    const attach = async (n: number): Promise<PeerSocket> => {
      const res = await g.api('POST', `/v1/calls/${call.id}/stream`, { url });
      expect(res.status, show(res)).toBe(202);
      const conn = await a.connection(n);
      await conn.message((m) => m.type === 'start');
      return conn;
    };
    const second = await attach(1);
    expectSignedUpgrade(second, url, rotated, { after, before: unixNow() });
    expect(() => verify(made, url, second)).toThrow(WebhookVerificationError);

    // One set in the settings (the console's way) signs the next upgrade too.
    const saved = newSecret();
    const res = await g.api('PUT', '/v1/settings', { webhookSecret: saved });
    expect(res.status, show(res)).toBe(200);
    const third = await attach(2);
    expectSignedUpgrade(third, url, saved, { after, before: unixNow() });
    expect(() => verify(rotated, url, third)).toThrow(WebhookVerificationError);
  });
});
