import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Env, Hono } from 'hono';

const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js'] as const;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Voice Gateway API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true, persistAuthorization: true });`;

/** The API reference at /docs, served from the swagger-ui-dist package so it works offline. */
export function mountDocsPage<E extends Env>(app: Hono<E>): void {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, { body: string; type: string }>(
    ASSETS.map((name) => [name, { body: readFileSync(path.join(dir, name), 'utf8'), type: name.endsWith('.css') ? 'text/css' : 'text/javascript' }]),
  );
  assets.set('init.js', { body: INIT, type: 'text/javascript' });
  app.get('/docs', (c) => c.html(PAGE));
  app.get('/docs/assets/:name', (c) => {
    const asset = assets.get(c.req.param('name'));
    if (!asset) return c.notFound();
    c.header('Content-Type', `${asset.type}; charset=utf-8`);
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(asset.body);
  });
}
