import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OpenAPIHono } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponse, validationError, type AppEnv } from '../../src/http/index.js';
import { registerWebhookDeliveryRoutes } from '../../src/http/routes/webhook-deliveries.js';
import { createLogger } from '../../src/log.js';
import { openStore, type Store } from '../../src/store/index.js';
import { WebhooksRepo } from '../../src/store/webhooks-repo.js';
import { WebhookDispatcher } from '../../src/webhooks/index.js';

let dir: string;
let store: Store;
let app: OpenAPIHono<AppEnv>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'vg-webhook-routes-'));
  const log = createLogger('silent');
  store = await openStore({ dataDir: dir, log });
  const repo = new WebhooksRepo(store.db);
  for (let i = 1; i <= 5; i++) {
    await repo.insertDelivery({
      callId: i % 2 ? 'call_a' : 'call_b',
      eventId: `evt_${i}`,
      event: 'call.active',
      url: 'https://example.com/hook',
      attempt: 1,
      ok: i !== 3,
      statusCode: i === 3 ? 500 : 204,
      error: i === 3 ? 'HTTP 500' : null,
      durationMs: 12,
      at: new Date(Date.UTC(2026, 10, 20, 12, 0, i)).toISOString(),
      retryOf: null,
      body: '{}',
    });
  }
  app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => (result.success ? undefined : errorResponse(c, validationError(result.error, result.target))),
  });
  const webhooks = new WebhookDispatcher({ store, log, secret: () => 'whsec_AAAA', retryDelaysMs: [1, 1, 1] });
  registerWebhookDeliveryRoutes(app, { webhooks });
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

type Body = { deliveries: Array<Record<string, unknown>> };

describe('GET /v1/webhook-deliveries', () => {
  it('lists attempts newest first, 50 by default', async () => {
    const res = await app.request('/v1/webhook-deliveries');
    const body = (await res.json()) as Body;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.deliveries.map((d) => d.eventId)).toEqual(['evt_5', 'evt_4', 'evt_3', 'evt_2', 'evt_1']);
    expect(body.deliveries[2]).toEqual({
      id: 3,
      callId: 'call_a',
      eventId: 'evt_3',
      event: 'call.active',
      url: 'https://example.com/hook',
      attempt: 1,
      ok: false,
      error: 'HTTP 500',
      statusCode: 500,
      durationMs: 12,
      gaveUp: false,
      at: '2026-11-20T12:00:03.000Z',
    });
    expect(body.deliveries[0]).not.toHaveProperty('error');
  });

  it('filters by callId and honours limit', async () => {
    const res = await app.request('/v1/webhook-deliveries?callId=call_a&limit=2');
    const body = (await res.json()) as Body;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.deliveries.map((d) => d.eventId)).toEqual(['evt_5', 'evt_3']);
  });

  it.each(['limit=0', 'limit=201', 'limit=abc', 'callId='])('refuses %s with 400', async (query) => {
    const res = await app.request(`/v1/webhook-deliveries?${query}`);
    const body = (await res.json()) as { error: { code: string } };
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
  });

  it('documents named components', () => {
    const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '0.1.0' } });
    expect(Object.keys(doc.components?.schemas ?? {})).toEqual(expect.arrayContaining(['WebhookDelivery', 'WebhookDeliveryList', 'Error']));
    const op = doc.paths?.['/v1/webhook-deliveries']?.get;
    expect(op?.parameters?.map((p) => ('name' in p ? p.name : undefined))).toEqual(['callId', 'event', 'ok', 'before', 'limit']);
    expect(Object.keys(op?.responses ?? {})).toEqual(['200', '400', '401']);
  });
});
