import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { callInState, until, getCall } from '../helpers/phones.js';
import { agentInfo, rig, testScope, type AssistantCallInfo } from './support.js';

const scope = testScope();

describe('assistant settings and messages API', () => {
  it('GET/PUT /v1/agent: defaults, partial updates and validation', async () => {
    const r = await rig(scope);
    const get = await r.gateway.api('GET', '/v1/agent');
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ settings: { autoAnswer: false, ownerName: '', about: '', voice: 'marin' } });

    const put = await r.gateway.api('PUT', '/v1/agent', { ownerName: 'Dana', voice: 'cedar' });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ settings: { autoAnswer: false, ownerName: 'Dana', about: '', voice: 'cedar' } });
    const put2 = await r.gateway.api('PUT', '/v1/agent', { autoAnswer: true, about: 'x'.repeat(4000), ownerName: 'y'.repeat(80) });
    expect(put2.status).toBe(200);
    expect(put2.body).toMatchObject({ settings: { autoAnswer: true, voice: 'cedar' } });

    for (const bad of [{ ownerName: 'y'.repeat(81) }, { about: 'x'.repeat(4001) }, { voice: 'robot' }, { autoAnswer: 'yes' }, { extra: 1 }, { ownerName: 5 }]) {
      const res = await r.gateway.api<{ error: { code: string } }>('PUT', '/v1/agent', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await r.gateway.api('PUT', '/v1/agent', undefined, { raw: '{not json' })).status).toBe(400);
    expect((await r.gateway.api('GET', '/v1/agent')).body).toMatchObject({ settings: { ownerName: 'y'.repeat(80), voice: 'cedar' } });
    expect((await r.gateway.api('GET', '/v1/agent', undefined, { key: null })).status).toBe(401);
  });

  it('GET /v1/agent/messages: limit 1..200, default 50', async () => {
    const r = await rig(scope);
    expect((await r.gateway.api('GET', '/v1/agent/messages')).body).toEqual({ messages: [] });
    for (const limit of ['0', '201', 'abc', '1.5']) expect((await r.gateway.api('GET', `/v1/agent/messages?limit=${limit}`)).status).toBe(400);
    expect((await r.gateway.api('GET', '/v1/agent/messages?limit=200')).status).toBe(200);
    expect((await r.gateway.api('GET', '/v1/agent/messages?limit=1')).status).toBe(200);
  });

  it('the routes are in the OpenAPI document with named components', async () => {
    const r = await rig(scope);
    const doc = (await r.gateway.api<{ paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } }>('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/calls/{callId}/agent'] ?? {}).sort()).toEqual(['delete', 'get', 'post']);
    expect(Object.keys(doc.paths['/v1/agent'] ?? {}).sort()).toEqual(['get', 'put']);
    expect(doc.paths['/v1/agent/messages']).toBeDefined();
    for (const name of ['AssistantCallInfo', 'AssistantMessage', 'AssistantSettings']) expect(doc.components.schemas[name]).toBeDefined();
  });
});

describe('incoming calls (rules 1 and 2)', () => {
  it('rule 2: with autoAnswer on, the assistant answers and greets', async () => {
    const r = await rig(scope);
    await r.gateway.api('PUT', '/v1/agent', { autoAnswer: true, ownerName: 'Dana' });
    const callId = await r.phone.ringIncoming('+4915100000006');
    await callInState(r.gateway, callId, 'active');
    await r.fake.waitForEvent('response.create', undefined, 5000);
    const info = await until(() => agentInfo(r.gateway, callId), (i) => i.status === 'live', { what: 'assistant live' });
    expect(info.requested).toBe(true);
    expect(((await r.fake.waitForEvent('session.update')).session as { instructions: string }).instructions).toContain('Dana');
  });

  it('rule 2 with a refused key: the call keeps ringing', async () => {
    const r = await rig(scope, { key: 'sk-refused-key-000000000000' });
    await r.gateway.api('PUT', '/v1/agent', { autoAnswer: true });
    const callId = await r.phone.ringIncoming('+4915100000007');
    const info = await until(() => agentInfo(r.gateway, callId), (i: AssistantCallInfo) => i.status === 'error', { what: 'assistant error' });
    expect(info.error).toMatch(/401|invalid_api_key/);
    expect((await getCall(r.gateway, callId)).state).toBe('ringing');
  });

  it('autoAnswer without a key does nothing; the call rings', async () => {
    const r = await rig(scope, { key: null });
    await r.gateway.api('PUT', '/v1/agent', { autoAnswer: true });
    const callId = await r.phone.ringIncoming('+4915100000010');
    expect((await agentInfo(r.gateway, callId)).status).toBe('off');
    expect((await getCall(r.gateway, callId)).state).toBe('ringing');
    expect(r.fake.requests).toHaveLength(0);
  });

  it('rule 1: an incoming stream URL takes precedence over autoAnswer', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    scope.defer(() => new Promise<void>((resolve) => {
      for (const c of wss.clients) c.terminate();
      wss.close(() => resolve());
    }));
    const agentConnected = new Promise<void>((resolve) => wss.once('connection', () => resolve()));
    const r = await rig(scope, { env: { INCOMING_STREAM_URL: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/agent` } });
    await r.gateway.api('PUT', '/v1/agent', { autoAnswer: true });
    const callId = await r.phone.ringIncoming('+4915100000008');
    await agentConnected;
    await callInState(r.gateway, callId, 'active');
    expect(r.fake.requests).toHaveLength(0);
    expect(await agentInfo(r.gateway, callId)).toEqual({ requested: false, status: 'off', transcript: [] });
  });
});
