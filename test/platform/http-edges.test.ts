import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_API_KEY, type TestGateway } from '../helpers/gateway.js';
import { until } from '../helpers/phones.js';
import { rawHttp, show } from './support.js';

const KB = 1024;

let g: TestGateway | undefined;
afterEach(async () => {
  await g?.stop();
  g = undefined;
});

const head = (method: string, path: string, headers: Record<string, string | number> = {}): string =>
  `${method} ${path} HTTP/1.1\r\nHost: gateway.test\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

const json = { 'content-type': 'application/json' };
const auth = { authorization: `Bearer ${TEST_API_KEY}` };

describe('keep-alive after a body the route did not read', () => {
  it.for([
    ['POST', '/v1/calls', {}, 401, 400 * KB],
    ['POST', '/v1/calls', {}, 401, 1024 * KB],
    ['POST', '/v1/no-such-route', auth, 404, 600 * KB],
    ['DELETE', '/v1/api-keys/unknown', auth, 404, 500 * KB],
    ['GET', '/health', {}, 200, 700 * KB],
  ] as const)('%s %s with %#: the next request on the connection is answered', async ([method, path, headers, status, size]) => {
    g ??= await startTestGateway();
    const body = Buffer.alloc(size, 0x20);
    const { responses, closed, error } = await rawHttp(
      g.url,
      [head(method, path, { ...json, ...headers, 'content-length': size }), body, head('GET', '/v1/settings', auth), head('GET', '/health')],
      3,
    );
    expect(responses.map((r) => r.status), `closed: ${closed}, ${error ?? ''}`).toEqual([status, 200, 200]);
    expect(responses[0]?.headers.connection).not.toBe('close');
    expect(responses[1]?.body).toMatchObject({ settings: expect.any(Object) });
  });

  it('keeps serving 20 such requests in a row on one fetch connection', async () => {
    g = await startTestGateway();
    const body = 'x'.repeat(400 * KB);
    const failures: string[] = [];
    for (let i = 0; i < 20; i++) {
      try {
        const refused = await fetch(`${g.url}/v1/calls`, { method: 'POST', body, headers: json });
        expect(refused.status).toBe(401);
        await refused.text();
        const next = await fetch(`${g.url}/health`);
        expect(next.status).toBe(200);
        await next.text();
      } catch (err) {
        failures.push(`${i}: ${(err as Error).message} ${String((err as Error).cause ?? '')}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('requests Node would answer on its own', () => {
  it('answers a request without Host, or with one that makes no URL, in the error shape', async () => {
    g = await startTestGateway();
    for (const [request, path] of [
      ['GET /health HTTP/1.1\r\n\r\n', 'header.host'],
      ['GET /v1/settings HTTP/1.0\r\n\r\n', 'header.host'],
      ['GET /health HTTP/1.1\r\nHost: a b\r\n\r\n', 'target'],
    ] as const) {
      const { responses } = await rawHttp(g.url, [request], 1);
      expect(responses, JSON.stringify(request)).toHaveLength(1);
      expect(responses[0]?.status, responses[0]?.text).toBe(400);
      expect(responses[0]?.headers['content-type']).toMatch(/^application\/json/);
      expect(responses[0]?.body).toMatchObject({
        error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/host/i), issues: [{ path, message: expect.any(String), code: expect.any(String) }] },
      });
    }
  });

  it('answers bytes that are not HTTP in the error shape, with an issue', async () => {
    g = await startTestGateway();
    const { responses, closed } = await rawHttp(g.url, ['HELLO THERE\r\n\r\n'], 1);
    expect(responses[0]?.status).toBe(400);
    expect(responses[0]?.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', issues: [{ path: 'request', code: 'malformed_http' }] } });
    expect(closed || responses[0]?.headers.connection === 'close').toBe(true);
  });
});

describe('a client that hangs up mid-body', () => {
  it.for([
    ['with Content-Length', { 'content-length': 4000 }, '{"publicUrl":"https://'],
    ['chunked', { 'transfer-encoding': 'chunked' }, '16\r\n{"publicUrl":"https://\r\n'],
  ] as const)('%s is logged as the client going away, not as an unhandled error', async ([, framing, part]) => {
    g = await startTestGateway({ captureLogs: true });
    const socket = net.connect(g.port, '127.0.0.1');
    socket.on('error', () => undefined);
    // The head and part of the body reach the gateway before the connection ends (TCP keeps the order).
    await new Promise<void>((resolve) => socket.write(head('PUT', '/v1/settings', { ...auth, ...json, ...framing }) + part, () => resolve()));
    socket.destroy();
    const gateway = g;
    await until(
      async () => gateway.logs,
      (logs) => logs.some((line) => line.includes('client closed the connection')),
      { what: 'the log line about the client going away' },
    );
    const after = await g.api('GET', '/v1/settings');
    expect(after.status, show(after)).toBe(200);
    expect(after.body.settings.publicUrl).toBeNull();
    expect(g.logs.filter((line) => /unhandled|"level":50/.test(line))).toEqual([]);
  });
});

describe('malformed JSON', () => {
  it('is a VALIDATION_ERROR with an issues array, like every other validation error', async () => {
    g = await startTestGateway();
    for (const raw of ['{bad', '{"name": "x"', '   ', 'name=x']) {
      const res = await g.api('POST', '/v1/api-keys', undefined, { raw });
      expect(res.status, show(res)).toBe(400);
      expect(res.body).toEqual({
        error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/JSON/), issues: [{ path: 'body', message: expect.stringMatching(/JSON/), code: 'invalid_json' }] },
      });
    }
    // Bytes that are not UTF-8 (a Latin-1 name, a stray 0xff) are refused, not stored as U+FFFD.
    for (const raw of [Buffer.from('{"name":"caf\xe9"}', 'latin1'), Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])]) {
      const res = await g.api('POST', '/v1/api-keys', undefined, { raw });
      expect(res.status, show(res)).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', issues: [{ path: 'body', message: expect.stringMatching(/UTF-8/), code: 'invalid_json' }] } });
    }
    const keys = await g.api<{ apiKeys: { name: string }[] }>('GET', '/v1/api-keys');
    expect(keys.body.apiKeys.map((k) => k.name)).not.toContainEqual(expect.stringContaining('\ufffd'));
    const utf8 = await g.api('POST', '/v1/api-keys', undefined, { raw: Buffer.from('{"name":"café"}', 'utf8') });
    expect(utf8.status, show(utf8)).toBe(201);
    const notJson = await g.api('POST', '/v1/api-keys', undefined, { raw: '{"name":"x"}', headers: { 'content-type': 'text/plain' } });
    expect(notJson.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', issues: [{ path: 'header.content-type', message: expect.stringMatching(/JSON/) }] } });
    const socket = await g.api('GET', '/v1/live');
    expect(socket.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', issues: [{ path: 'header.upgrade' }] } });
  });
});

describe('request headers', () => {
  it('answers headers over the server\'s limit with 431 HEADERS_TOO_LARGE (413\'s code is for bodies)', async () => {
    g = await startTestGateway();
    const { responses } = await rawHttp(g.url, [head('GET', '/health', { 'x-padding': 'a'.repeat(20 * KB) })], 1);
    expect(responses[0]?.status).toBe(431);
    expect(responses[0]?.body).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.stringContaining('headers') } });
  });

  it('takes x-api-key when a proxy adds Authorization with another scheme; a Bearer credential still decides', async () => {
    g = await startTestGateway();
    const basic = await g.api('GET', '/v1/settings', undefined, { key: null, headers: { authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': TEST_API_KEY } });
    expect(basic.status, show(basic)).toBe(200);
    const wrongBearer = await g.api('GET', '/v1/settings', undefined, { key: null, headers: { authorization: 'Bearer wrong-key-0123456789', 'x-api-key': TEST_API_KEY } });
    expect(wrongBearer.status, show(wrongBearer)).toBe(401);
    const basicAlone = await g.api('GET', '/v1/settings', undefined, { key: null, headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basicAlone.status, show(basicAlone)).toBe(401);
  });
});
