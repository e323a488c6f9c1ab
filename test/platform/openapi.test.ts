import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { show } from './support.js';

type Schema = { $ref?: string; enum?: unknown[]; maxLength?: number; maximum?: number; minimum?: number; type?: string; [k: string]: unknown };
interface Operation {
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; schema?: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
  security?: unknown[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('OpenAPI document and reference page', () => {
  let g: TestGateway;
  let doc: Document;
  let ops: Array<{ name: string; path: string; op: Operation; public: boolean }>;

  beforeAll(async () => {
    g = await startTestGateway();
    const res = await g.api<Document>('GET', '/openapi.json', undefined, { key: null });
    expect(res.status, show(res)).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = res.body;
    ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => {
        const op = item[m]!;
        return { name: `${m.toUpperCase()} ${path}`, path, op, public: Array.isArray(op.security) && op.security.length === 0 };
      }),
    );
  });
  afterAll(async () => {
    await g.stop();
  });

  it('is OpenAPI 3.1 with version 0.1.0 and both ways of sending a key', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: '0.1.0' });
    expect(Object.values(doc.components.securitySchemes)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'http', scheme: 'bearer' }),
        expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
      ]),
    );
    expect(doc.security?.length).toBeGreaterThan(0);
  });

  it('names its components', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Error', 'Settings', 'SettingsUpdate', 'SecretInfo', 'ApiKey', 'ApiKeyCreate']));
    const error = JSON.stringify(doc.components.schemas.Error);
    for (const field of ['code', 'message', 'issues']) expect(error).toContain(`"${field}"`);
    const settings = JSON.stringify(doc.components.schemas.Settings);
    for (const field of ['publicUrl', 'webhookUrl', 'docsUrl', 'incomingStreamUrl', 'incomingStreamFormat', 'assistantModel', 'assistantApiKey', 'webhookSecret']) {
      expect(settings).toContain(`"${field}"`);
    }
  });

  it('refers to the named components instead of inlining them', () => {
    const get = doc.paths['/v1/settings']?.get;
    expect(JSON.stringify(get?.responses['200'])).toContain('#/components/schemas/');
    const post = doc.paths['/v1/api-keys']?.post;
    expect(JSON.stringify(post?.requestBody)).toContain('#/components/schemas/ApiKeyCreate');
  });

  it('lists 401 on every /v1 operation except the public ones', () => {
    const missing = ops.filter((o) => o.path.startsWith('/v1') && !o.public && !o.op.responses['401']).map((o) => o.name);
    expect(missing).toEqual([]);
    expect(ops.filter((o) => o.path.startsWith('/v1') && !o.public).length).toBeGreaterThanOrEqual(6);
  });

  it('lists 400 and 413 on every operation that takes a body', () => {
    const missing = ops.filter(({ op }) => op.requestBody && !(op.responses['400'] && op.responses['413'])).map((o) => o.name);
    expect(missing).toEqual([]);
  });

  it('documents every status an operation answers to unknown ids, missing bodies and out-of-bounds parameters', async () => {
    const problems: string[] = [];
    for (const { name, path, op } of ops) {
      const params = op.parameters ?? [];
      const value = (p: (typeof params)[number]) => String(p.schema?.enum?.[0] ?? 'does-not-exist');
      const variants: Array<{ what: string; path: Record<string, string>; query: Record<string, string>; raw?: string }> = [
        { what: 'unknown ids, no body', path: Object.fromEntries(params.filter((p) => p.in === 'path').map((p) => [p.name, value(p)])), query: {} },
      ];
      if (op.requestBody) variants.push({ ...variants[0]!, what: 'malformed JSON', raw: '{bad' });
      for (const p of params) {
        const bad: string[] = [];
        if (p.schema?.enum) bad.push('not-a-listed-value');
        if (typeof p.schema?.maxLength === 'number') bad.push('x'.repeat(p.schema.maxLength + 1));
        if (typeof p.schema?.maximum === 'number') bad.push(String(p.schema.maximum + 1));
        if (typeof p.schema?.minimum === 'number') bad.push(String(p.schema.minimum - 1));
        if (p.schema?.type === 'integer') bad.push('abc');
        for (const v of bad) {
          const base = variants[0]!;
          if (p.in === 'path') variants.push({ what: `${p.name}=${v.slice(0, 20)}`, path: { ...base.path, [p.name]: v }, query: {} });
          if (p.in === 'query') variants.push({ what: `${p.name}=${v.slice(0, 20)}`, path: base.path, query: { [p.name]: v } });
        }
      }
      for (const variant of variants) {
        const url = path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(variant.path[n] ?? 'x')) + (Object.keys(variant.query).length ? `?${new URLSearchParams(variant.query)}` : '');
        const method = name.split(' ')[0]!;
        const res = await g.api(method, url, undefined, variant.raw === undefined ? {} : { raw: variant.raw });
        if (!op.responses[String(res.status)] && !op.responses.default) problems.push(`${name} (${variant.what}): answered ${show(res)} but lists ${Object.keys(op.responses).join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('describes every error response with the Error component', () => {
    const problems: string[] = [];
    for (const { name, op } of ops) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const schema = response.content?.['application/json']?.schema;
        if (schema?.$ref !== '#/components/schemas/Error') problems.push(`${name} ${status}: ${JSON.stringify(response)}`);
        if (!response.description) problems.push(`${name} ${status}: no description`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('describes what the platform routes really answer', () => {
    expect(Object.keys(doc.paths['/v1/api-keys']!.post!.responses)).toContain('201');
    expect(Object.keys(doc.paths['/v1/api-keys/{id}']!.delete!.responses)).toEqual(expect.arrayContaining(['204', '401', '404']));
    expect(Object.keys(doc.paths['/v1/settings']!.put!.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '413']));
    expect(doc.paths['/health']!.get!.security).toEqual([]);
    const metrics = doc.paths['/metrics']!.get!;
    expect(metrics.security).toEqual([{ metricsToken: [] }, { bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(Object.keys(metrics.responses['200']!.content!)).toEqual(['text/plain']);
  });

  it('serves /docs as an HTML page whose scripts and styles load', async () => {
    const page = await fetch(`${g.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toMatch(/<title>[^<]+<\/title>/);
    const assets = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    let scriptText = '';
    for (const asset of assets) {
      const url = new URL(asset, `${g.url}/docs`);
      expect(url.origin, `${asset} is served by the gateway itself, so the page works offline`).toBe(new URL(g.url).origin);
      const res = await fetch(url);
      const body = await res.text();
      expect(res.status, `${asset}: ${res.status}`).toBe(200);
      expect(body.length, asset).toBeGreaterThan(0);
      if (asset.endsWith('.css')) expect(res.headers.get('content-type')).toMatch(/^text\/css/);
      if (asset.endsWith('.js')) {
        expect(res.headers.get('content-type')).toMatch(/javascript/);
        scriptText += body;
      }
    }
    expect(scriptText, 'the page loads the served document').toContain('/openapi.json');
  });
});
