import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Context, Env, Hono } from 'hono';

/** Where `npm run build:console` writes the console (console/vite.config.ts). */
export const CONSOLE_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../console/dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** The console page may load only its own files; it may not be framed (clickjacking). */
const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; media-src 'self' blob:; " +
    "worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

interface Asset {
  body: Buffer;
  gzip: Buffer | null;
  type: string;
  immutable: boolean;
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Voice Gateway</title>
<body style="font-family:system-ui;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>The console has not been built</h1><p>Run <code>npm run build:console</code> (or <code>npm start</code>, which builds it when needed) and reload.</p>
<p>The REST interface works without it: see <a href="/docs">/docs</a>.</p></body></html>`;

function load(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  const walk = (sub: string): void => {
    for (const name of readdirSync(path.join(dir, sub))) {
      const rel = path.posix.join(sub, name);
      const file = path.join(dir, rel);
      if (statSync(file).isDirectory()) {
        walk(rel);
        continue;
      }
      const body = readFileSync(file);
      const type = TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
      const compressible = /^(text\/|application\/(json|manifest)|image\/svg)/.test(type) && body.length > 1024;
      assets.set(`/${rel}`, { body, gzip: compressible ? gzipSync(body, { level: 9 }) : null, type, immutable: rel.startsWith('assets/') });
    }
  };
  walk('');
  return assets;
}

function send(c: Context, asset: Asset, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    'Content-Type': asset.type,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    ...extra,
  };
  if (asset.gzip && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
    return c.body(new Uint8Array(asset.gzip), 200, { ...headers, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
  }
  return c.body(new Uint8Array(asset.body), 200, asset.gzip ? { ...headers, Vary: 'Accept-Encoding' } : headers);
}

/**
 * Serves the console's built files at `/` without authentication. A GET for a page of the console
 * (`/`, or any path a browser asks HTML for) gets index.html so that client-side routes load;
 * anything else unknown keeps the API's 404. Registered last, after every API route.
 */
export function mountConsole<E extends Env>(app: Hono<E>, dir = CONSOLE_DIST): void {
  const assets = load(dir);
  const index = assets.get('/index.html');
  const page: Asset = index ?? { body: Buffer.from(NOT_BUILT), gzip: null, type: TYPES['.html']!, immutable: false };
  app.get('*', (c) => {
    const p = c.req.path;
    if (p === '/v1' || p.startsWith('/v1/')) return c.notFound();
    const asset = p === '/index.html' ? undefined : assets.get(p);
    if (asset) return send(c, asset);
    const wantsPage = p === '/' || p === '/index.html' || ((c.req.header('accept') ?? '').includes('text/html') && !path.posix.extname(p));
    if (wantsPage) return send(c, page, PAGE_HEADERS);
    return c.notFound();
  });
}
