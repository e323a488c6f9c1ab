import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_API_KEY, type TestGateway } from '../helpers/gateway.js';
import { show } from './support.js';

interface Operation {
  method: string;
  template: string;
  url: string;
  public: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type OpenApiOperation = {
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; schema?: { enum?: unknown[] } }>;
};

/** Every operation of the served OpenAPI document, with a concrete URL for it. */
async function operations(g: TestGateway): Promise<Operation[]> {
  const doc = await g.api<{ paths: Record<string, Record<string, OpenApiOperation>> }>('GET', '/openapi.json', undefined, { key: null });
  expect(doc.status, show(doc)).toBe(200);
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.body.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const url = template.replace(/\{(\w+)\}/g, (_, name: string) => {
        const param = op.parameters?.find((p) => p.in === 'path' && p.name === name);
        return encodeURIComponent(String(param?.schema?.enum?.[0] ?? 'does-not-exist'));
      });
      ops.push({ method: method.toUpperCase(), template, url, public: Array.isArray(op.security) && op.security.length === 0 });
    }
  }
  return ops;
}

describe('authentication', () => {
  let g: TestGateway;
  let ops: Operation[];

  beforeAll(async () => {
    g = await startTestGateway();
    ops = await operations(g);
  });
  afterAll(async () => {
    await g.stop();
  });

  it('finds the platform operations in the OpenAPI document', () => {
    const names = ops.map((op) => `${op.method} ${op.template}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'GET /health',
        'GET /v1/settings',
        'PUT /v1/settings',
        'POST /v1/settings/webhook-secret',
        'GET /v1/api-keys',
        'POST /v1/api-keys',
        'DELETE /v1/api-keys/{id}',
      ]),
    );
  });

  it('answers 401 UNAUTHORIZED on every operation that is not public, without a key or with a wrong one', async () => {
    const secured = ops.filter((op) => !op.public);
    expect(secured.length).toBeGreaterThanOrEqual(6);
    const problems: string[] = [];
    const attempts: Array<[string, { key?: string | null; headers?: Record<string, string> }]> = [
      ['no key', { key: null }],
      ['a wrong bearer key', { key: 'wrong-key-0123456789abcdef' }],
      ['a wrong gw_ key', { key: 'gw_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
      ['a wrong x-api-key', { key: null, headers: { 'x-api-key': 'wrong-key-0123456789abcdef' } }],
      ['an empty bearer', { key: null, headers: { authorization: 'Bearer ' } }],
      ['the key under another scheme', { key: null, headers: { authorization: `Basic ${TEST_API_KEY}` } }],
    ];
    for (const op of secured) {
      for (const [what, options] of attempts) {
        const res = await g.api<{ error?: { code?: string } }>(op.method, op.url, undefined, options);
        if (res.status !== 401 || res.body?.error?.code !== 'UNAUTHORIZED') problems.push(`${op.method} ${op.url} with ${what}: ${show(res)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('lets the right key through on every operation, so the walk above reached real routes', async () => {
    const problems: string[] = [];
    for (const op of ops) {
      for (const headers of [{ authorization: `Bearer ${TEST_API_KEY}` }, { 'x-api-key': TEST_API_KEY }] as Array<Record<string, string>>) {
        const res = await g.api<{ error?: { code?: string; message?: string } }>(op.method, op.url, undefined, { key: null, headers });
        const noRoute = res.status === 404 && /^No route/.test(res.body?.error?.message ?? '');
        if (res.status === 401 || noRoute || res.status >= 500) problems.push(`${op.method} ${op.url} (${Object.keys(headers)[0]}): ${show(res)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('declares public every operation outside /v1 but /metrics, since only they sit behind the key check', () => {
    const outside = ops.filter((op) => !op.template.startsWith('/v1/') && !op.public);
    expect(outside.map((op) => `${op.method} ${op.template}`)).toEqual(['GET /metrics']);
  });

  it('keeps /health, /openapi.json and /docs open, with or without a key', async () => {
    for (const path of ['/health', '/openapi.json', '/docs']) {
      for (const key of [null, 'wrong-key-0123456789abcdef', TEST_API_KEY]) {
        const res = await g.api('GET', path, undefined, { key });
        expect(res.status, `${path} with key ${key}: ${show(res)}`).toBe(200);
      }
    }
    const health = await g.api('GET', '/health', undefined, { key: null });
    expect(health.body).toMatchObject({ ok: true, service: expect.any(String) });
  });

  it('accepts the environment key and a created key both as Bearer and as x-api-key', async () => {
    const created = await g.api<{ apiKey: { key: string } }>('POST', '/v1/api-keys', { name: 'both headers' });
    expect(created.status, show(created)).toBe(201);
    for (const key of [TEST_API_KEY, created.body.apiKey.key]) {
      for (const headers of [{ authorization: `Bearer ${key}` }, { authorization: `bearer ${key}` }, { 'x-api-key': key }] as Array<Record<string, string>>) {
        const res = await g.api('GET', '/v1/settings', undefined, { key: null, headers });
        expect(res.status, `${JSON.stringify(Object.keys(headers))}: ${show(res)}`).toBe(200);
      }
    }
  });

  it('rejects keys that merely resemble a valid one', async () => {
    const created = await g.api<{ apiKey: { key: string; prefix: string } }>('POST', '/v1/api-keys', { name: 'lookalikes' });
    const { key, prefix } = created.body.apiKey;
    const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    for (const wrong of [prefix, key.slice(0, -1), `${key}x`, flipped, TEST_API_KEY.slice(0, -1), `${TEST_API_KEY}x`, TEST_API_KEY.toUpperCase()]) {
      const res = await g.api('GET', '/v1/settings', undefined, { key: wrong });
      expect(res.status, `${wrong}: ${show(res)}`).toBe(401);
      expect(res.body).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    }
  });

  it('does not reveal whether an unknown /v1 route exists before the key is checked', async () => {
    const res = await g.api('GET', '/v1/no-such-thing', undefined, { key: null });
    expect(res.status, show(res)).toBe(401);
    expect(res.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  });
});
