import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_API_KEY, type TestGateway } from '../helpers/gateway.js';
import { chunkedRequest, show } from './support.js';

const MIB = 1024 * 1024;
const auth = { authorization: `Bearer ${TEST_API_KEY}` };

/** A valid settings body padded with JSON whitespace to exactly `size` bytes. */
const paddedSettings = (size: number): string => {
  const json = '{"publicUrl":"https://padded.example"}';
  return json.slice(0, -1) + ' '.repeat(size - json.length) + '}';
};

const isErrorBody = (body: unknown): boolean => {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
};

describe('error responses', () => {
  let g: TestGateway;

  beforeAll(async () => {
    g = await startTestGateway();
  });
  afterAll(async () => {
    await g.stop();
  });

  it('answers an unknown route with 404 NOT_FOUND in the error shape', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/v1/nope'],
      ['POST', '/v1/settings'],
      ['PATCH', '/v1/settings'],
      ['GET', '/v1/settings/'],
      ['GET', '/docs/assets/nope.js'],
    ] as const) {
      const res = await g.api(method, path);
      expect(res.status, `${method} ${path}: ${show(res)}`).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR', async () => {
    for (const [method, path, raw] of [
      ['PUT', '/v1/settings', '{bad'],
      ['PUT', '/v1/settings', '{"publicUrl": "https://a.example",}'],
      ['PUT', '/v1/settings', '   '],
      ['POST', '/v1/api-keys', '{"name": "x"'],
      ['POST', '/v1/api-keys', 'name=x'],
    ] as const) {
      const res = await g.api(method, path, undefined, { raw });
      expect(res.status, `${method} ${path} ${JSON.stringify(raw)}: ${show(res)}`).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
    }
  });

  it('takes a JSON request with no body at all as one with no fields', async () => {
    const before = (await g.api('GET', '/v1/settings')).body;
    const put = await g.api('PUT', '/v1/settings', undefined, { raw: '' });
    expect(put.status, show(put)).toBe(200);
    expect(put.body).toEqual(before);
    const key = await g.api('POST', '/v1/api-keys', undefined, { raw: '' });
    expect(key.status, show(key)).toBe(400);
    expect(key.body.error.issues.map((i: { path: string }) => i.path)).toEqual(['body.name']);
  });

  it('answers a body that is not sent as JSON with 400 VALIDATION_ERROR', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await g.api('POST', '/v1/api-keys', undefined, { raw: '{"name":"x"}', headers: { 'content-type': contentType } });
      expect(res.status, `${contentType}: ${show(res)}`).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/JSON/) } });
    }
    const keys = await g.api<{ apiKeys: unknown[] }>('GET', '/v1/api-keys');
    expect(keys.body.apiKeys).toEqual([]);
  });

  it('names the field path and the problem of every validation issue', async () => {
    const url = await g.api('PUT', '/v1/settings', { publicUrl: 'not a url' });
    expect(url.status, show(url)).toBe(400);
    expect(url.body).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('body.publicUrl'),
        issues: [{ path: 'body.publicUrl', message: expect.stringMatching(/URL/), code: expect.any(String) }],
      },
    });

    const several = await g.api<{ error: { issues: Array<{ path: string; message: string }> } }>('PUT', '/v1/settings', {
      webhookUrl: 'ftp://files.example',
      incomingStreamFormat: 'mp3',
      incomingStreamUrl: 'https://not-a-socket.example',
      surprise: true,
    });
    expect(several.status, show(several)).toBe(400);
    const issues = several.body.error.issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'body.webhookUrl', message: expect.stringMatching(/http/) }),
        expect.objectContaining({ path: 'body.incomingStreamFormat', message: expect.stringMatching(/raw.*vendor/) }),
        expect.objectContaining({ path: 'body.incomingStreamUrl', message: expect.stringMatching(/ws:\/\//) }),
        expect.objectContaining({ message: expect.stringContaining('surprise') }),
      ]),
    );
    for (const issue of issues) expect(issue.message, JSON.stringify(issue)).not.toMatch(/^Invalid input$/);

    const wrongType = await g.api('PUT', '/v1/settings', { publicUrl: 42 });
    expect(wrongType.body).toMatchObject({ error: { issues: [{ path: 'body.publicUrl', message: expect.stringMatching(/URL/) }] } });

    const name = await g.api('POST', '/v1/api-keys', {});
    expect(name.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', issues: [{ path: 'body.name', message: 'is required' }] } });

    const param = await g.api('DELETE', `/v1/api-keys/${'a'.repeat(101)}`);
    expect(param.status, show(param)).toBe(400);
    expect(param.body).toMatchObject({ error: { code: 'VALIDATION_ERROR', issues: [{ path: 'path.id', message: 'must be at most 100 characters' }] } });
  });

  it('answers a body over 1 MiB with 413 PAYLOAD_TOO_LARGE when Content-Length announces it', async () => {
    const res = await g.api('PUT', '/v1/settings', undefined, { raw: paddedSettings(MIB + 1) });
    expect(res.status, show(res)).toBe(413);
    expect(res.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
    // The rest of the body is not read, so the connection must not be offered for reuse.
    expect(res.headers.get('connection')).toBe('close');
    for (let i = 0; i < 5; i++) {
      const next = await g.api('GET', '/v1/settings');
      expect(next.status, `request ${i} after the 413 on a keep-alive client: ${show(next)}`).toBe(200);
    }

    const exact = await g.api('PUT', '/v1/settings', undefined, { raw: paddedSettings(MIB) });
    expect(exact.status, `a body of exactly 1 MiB is accepted: ${show(exact)}`).toBe(200);
    expect(exact.body).toMatchObject({ settings: { publicUrl: 'https://padded.example' } });
  });

  it('enforces the 1 MiB limit on a chunked body without Content-Length too', async () => {
    const body = paddedSettings(MIB + 1).replace('padded.example', 'chunked.example');
    const pieces = [body.slice(0, 300_000), body.slice(300_000, 900_000), body.slice(900_000)];
    const res = await chunkedRequest(`${g.url}/v1/settings`, 'PUT', pieces, auth);
    expect(res.headers['content-length']).toBeDefined();
    expect(res.status, `${res.status} ${res.text}`).toBe(413);
    expect(res.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    const after = await g.api('GET', '/v1/settings');
    expect(after.body).not.toMatchObject({ settings: { publicUrl: 'https://chunked.example' } });

    const keys = await chunkedRequest(`${g.url}/v1/api-keys`, 'POST', ['{"name":"chunked"', ...Array.from({ length: 3 }, () => Buffer.alloc(512 * 1024, 0x20)), '}'], auth);
    expect(keys.status, keys.text).toBe(413);
    const list = await g.api<{ apiKeys: unknown[] }>('GET', '/v1/api-keys');
    expect(list.body.apiKeys).toEqual([]);

    const exact = await chunkedRequest(`${g.url}/v1/settings`, 'PUT', [paddedSettings(MIB).slice(0, 1000), paddedSettings(MIB).slice(1000)], auth);
    expect(exact.status, `a chunked body of exactly 1 MiB is accepted: ${exact.text}`).toBe(200);
  });

  it('never answers 500 to odd requests, and always in the error shape', async () => {
    const cases: Array<[string, string, { raw?: string; headers?: Record<string, string>; key?: string | null }]> = [
      ['PUT', '/v1/settings', { raw: 'null' }],
      ['PUT', '/v1/settings', { raw: '[]' }],
      ['PUT', '/v1/settings', { raw: '"text"' }],
      ['PUT', '/v1/settings', { raw: '12' }],
      ['PUT', '/v1/settings', { raw: '{"publicUrl":null,"assistantApiKey":{"nested":true}}' }],
      ['PUT', '/v1/settings', { raw: '{"__proto__":{"publicUrl":"https://x.example"}}' }],
      ['PUT', '/v1/settings', { raw: '{"publicUrl":"https://\u0000.example"}' }],
      ['PUT', '/v1/settings', { raw: `{"publicUrl":"https://a.example/${'x'.repeat(5000)}"}` }],
      ['POST', '/v1/api-keys', { raw: '{"name":"\\ud800"}' }],
      ['POST', '/v1/api-keys', { raw: '{"name":' + '['.repeat(5000) + ']'.repeat(5000) + '}' }],
      ['POST', '/v1/api-keys', { raw: '{"name":"x"}', headers: { 'content-type': 'application/json; charset=latin1' } }],
      ['DELETE', '/v1/api-keys/%ZZ', {}],
      ['DELETE', '/v1/api-keys/..%2F..%2Fsettings', {}],
      ['GET', '/v1/api-keys?limit=-1&before=yesterday', {}],
      ['GET', '/v1/settings', { key: null, headers: { authorization: 'Bearer \u00e9t\u00e9' } }],
      ['GET', '/v1/settings', { key: null, headers: { 'x-api-key': 'x'.repeat(8000) } }],
      ['GET', '/%2e%2e/%2e%2e/etc/passwd', {}],
      ['GET', '/docs/assets/..%2F..%2Fpackage.json', {}],
    ];
    const problems: string[] = [];
    for (const [method, path, options] of cases) {
      let res;
      try {
        res = await g.api(method, path, undefined, options);
      } catch (err) {
        problems.push(`${method} ${path}: request failed: ${(err as Error).message}`);
        continue;
      }
      if (res.status >= 500) problems.push(`${method} ${path} ${options.raw?.slice(0, 40) ?? ''}: ${show(res)}`);
      else if (res.status >= 400 && !isErrorBody(res.body)) {
        problems.push(`${method} ${path}: not the error shape: ${show(res)}`);
      }
    }
    expect(problems).toEqual([]);
    const health = await g.api('GET', '/health');
    expect(health.status).toBe(200);
  });
});
