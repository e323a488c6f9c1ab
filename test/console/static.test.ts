import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountConsole } from '../../src/http/console-static.js';

describe('serving the console', () => {
  let dir: string;
  let app: Hono;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vg-console-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Voice Gateway</title><div id="root"></div>');
    writeFileSync(path.join(dir, 'assets/index-abc123.js'), `console.log(${JSON.stringify('x'.repeat(4000))});`);
    writeFileSync(path.join(dir, 'assets/index-abc123.css'), 'body{margin:0}');
    writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    app = new Hono();
    app.get('/health', (c) => c.json({ ok: true }));
    mountConsole(app, dir);
    app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: 'No route' } }, 404));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves index.html at / and for any page a browser asks HTML for, with a strict policy', async () => {
    for (const p of ['/', '/calls', '/calls/call_123', '/settings']) {
      const res = await app.request(p, { headers: { accept: 'text/html,application/xhtml+xml' } });
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('<div id="root">');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('serves assets with their content types, long-cached when hashed, gzipped when asked', async () => {
    const js = await app.request('/assets/index-abc123.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await app.request('/assets/index-abc123.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await app.request('/favicon.svg')).headers.get('content-type')).toBe('image/svg+xml');
    const gz = await app.request('/assets/index-abc123.js', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
  });

  it('leaves the API its 404s: /v1 paths, missing files and non-HTML requests', async () => {
    for (const [p, accept] of [
      ['/v1/nope', 'text/html'],
      ['/assets/missing.js', 'text/html'],
      ['/nope', '*/*'],
      ['/nope', 'application/json'],
    ] as const) {
      const res = await app.request(p, { headers: { accept } });
      expect(res.status, p).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
    expect((await app.request('/health')).status).toBe(200);
  });

  it('explains a missing build instead of failing', async () => {
    const bare = new Hono();
    mountConsole(bare, path.join(dir, 'does-not-exist'));
    const res = await bare.request('/');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('npm run build:console');
  });
});
