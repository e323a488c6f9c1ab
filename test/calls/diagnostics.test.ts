import path from 'node:path';
import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { SQLITE_FILE } from '../../src/store/index.js';
import { databaseFor, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { deviceTokenOf, until, pairCredentials, show, storedContaining, testScope, type ErrorBody } from '../helpers/phones.js';
import type { Endpoint } from '../helpers/gateway.js';

const t = testScope();

interface Stored {
  diagnostics: { receivedAt: string; report: Record<string, unknown> } | null;
}

const read = (g: Endpoint, deviceId: string) => g.api<Stored>('GET', `/v1/devices/${deviceId}/diagnostics`);
const reportOf = async (g: Endpoint, deviceId: string, done: (r: Record<string, unknown>) => boolean) =>
  (await until(() => read(g, deviceId), (res) => res.body.diagnostics !== null && done(res.body.diagnostics.report), { what: 'the report' })).body
    .diagnostics!;

function report(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    generatedAt: new Date().toISOString(),
    trigger: 'manual',
    app: { version: '1.2.3' },
    device: { manufacturer: 'Google', model: 'Pixel 7', sdk: 34, release: '14' },
    checks: [
      { name: 'dialer_role', ok: true },
      { name: 'permission:android.permission.CALL_PHONE', ok: false, detail: 'not granted' },
    ],
    gateway: { link: 'connected', lastError: null },
    helper: {
      state: 'running',
      uid: 2000,
      capabilities: { capture: true, inject: false, method: 'voice_downlink', sampleRate: 48000 },
      diagnostics: { sdk: 34, attempts: [{ way: 'VOICE_CALL', result: 'failed', exception: 'java.lang.SecurityException', message: 'no' }] },
    },
    ...extra,
  };
}

/** Phone protocol extension 1.3 and GET /v1/devices/{deviceId}/diagnostics (docs/api.md). */
describe('GET /v1/devices/{deviceId}/diagnostics', () => {
  it('answers 404 NOT_FOUND for an unknown phone, 401 without a key, and null before any report', async () => {
    const g = await t.gateway();
    const missing = await g.api<ErrorBody>('GET', '/v1/devices/phone-000000000000/diagnostics');
    expect(missing.status, show(missing)).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const sim = await t.phone(g);
    const anon = await g.api<ErrorBody>('GET', `/v1/devices/${sim.deviceId}/diagnostics`, undefined, { key: null });
    expect(anon.status, show(anon)).toBe(401);
    expect(anon.body.error.code).toBe('UNAUTHORIZED');
    const before = await read(g, sim.deviceId!);
    expect(before.status, show(before)).toBe(200);
    expect(before.body).toEqual({ diagnostics: null });
  });

  it('serves the latest report with when it came, keeps a newer app\'s fields, and never a credential', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const token = deviceTokenOf(sim);
    const sent = report({
      deviceToken: token,
      futureField: { kept: true },
      gateway: { link: 'connected', lastError: null, authorization: `Bearer ${token}`, apiKey: 'gw_secret' },
      extras: [{ password: 'hunter2', keyboard: 'qwerty' }],
    });
    const before = Date.now();
    sim.diagnostics(sent);
    const stored = await reportOf(g, sim.deviceId!, () => true);
    expect(Date.parse(stored.receivedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(stored.report).toMatchObject({ trigger: 'manual', device: { model: 'Pixel 7', sdk: 34 }, futureField: { kept: true }, extras: [{ keyboard: 'qwerty' }] });
    expect(stored.report['helper']).toEqual(sent['helper']);
    expect(stored.report).not.toHaveProperty('deviceToken');
    expect(stored.report['gateway']).toEqual({ link: 'connected', lastError: null });
    const body = (await read(g, sim.deviceId!)).text;
    for (const secret of [token, 'gw_secret', 'hunter2']) expect(body).not.toContain(secret);
    expect(await storedContaining(g.dataDir, 'hunter2')).toEqual([]);

    // Each report replaces the last.
    sim.diagnostics(report({ trigger: 'helper_started' }));
    const next = await reportOf(g, sim.deviceId!, (r) => r['trigger'] === 'helper_started');
    expect(next.report).not.toHaveProperty('futureField');
  });

  it('refuses a report that is too large or malformed with BAD_MESSAGE, keeps the socket and the previous report', async () => {
    const g = await t.gateway();
    const creds = await pairCredentials(g);
    const phone = await t.raw(g, creds.deviceToken);
    phone.send({ type: 'diagnostics', version: 1, report: report({ trigger: 'first' }) });
    await reportOf(g, creds.deviceId, (r) => r['trigger'] === 'first');
    const bad = [
      report({ padding: 'x'.repeat(17 * 1024) }),
      report({ checks: 'all fine' }),
      report({ generatedAt: 'yesterday' }),
      { ...report(), helper: { uid: 'shell' } },
    ];
    const errors = () => phone.messages.filter((m) => m.type === 'error');
    for (const [i, r] of bad.entries()) {
      phone.send({ type: 'diagnostics', version: 1, report: r });
      await phone.next(() => errors().length > i);
    }
    phone.send({ type: 'diagnostics', version: 2, report: report() });
    await phone.next(() => errors().length > bad.length);
    expect(errors().map((e) => e['code'])).toEqual(Array(bad.length + 1).fill('BAD_MESSAGE'));
    expect(String(errors()[0]?.['message'])).toMatch(/report.*16 KiB/);
    expect((await read(g, creds.deviceId)).body.diagnostics?.report['trigger']).toBe('first');

    // The socket is still there: the next good report is taken.
    phone.send({ type: 'diagnostics', version: 1, report: report({ trigger: 'second' }) });
    await reportOf(g, creds.deviceId, (r) => r['trigger'] === 'second');
  });

  it('survives a restart of the gateway and is removed with the phone', async () => {
    const dataDir = t.tempDir();
    // A gateway given its data directory keeps its database; the gateways (stopped first) leave it here.
    t.defer(async () => {
      if (TEST_DATABASE_URL) await (await databaseFor(dataDir)).drop();
    });
    const first = await t.gateway({ dataDir });
    const sim = await t.phone(first);
    const deviceId = sim.deviceId!;
    sim.diagnostics(report({ trigger: 'before-restart', marker: 'diag-marker-7f3a' }));
    await reportOf(first, deviceId, (r) => r['trigger'] === 'before-restart');
    await sim.stop();
    await first.stop();

    const again = await t.gateway({ dataDir });
    expect((await read(again, deviceId)).body.diagnostics?.report['trigger']).toBe('before-restart');
    const removed = await again.api('DELETE', `/v1/devices/${deviceId}`);
    expect(removed.status, show(removed)).toBe(204);
    const gone = await read(again, deviceId);
    expect(gone.status, show(gone)).toBe(404);
    await again.stop();
    if (TEST_DATABASE_URL) {
      expect(await storedContaining(dataDir, 'diag-marker-7f3a')).toEqual([]);
    } else {
      // SQLite keeps freed pages' bytes: the rows are counted instead.
      const db = new Database(path.join(dataDir, SQLITE_FILE));
      try {
        expect(db.prepare('select count(*) as n from device_diagnostics').get()).toMatchObject({ n: 0 });
      } finally {
        db.close();
      }
    }
  });

  it('is in the OpenAPI document', async () => {
    const g = await t.gateway();
    const doc = (await g.api<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } }>('GET', '/openapi.json', undefined, { key: null })).body;
    const route = doc.paths['/v1/devices/{deviceId}/diagnostics']?.['get'];
    expect(Object.keys(route?.responses ?? {}).sort()).toEqual(['200', '401', '404']);
    expect(Object.keys(doc.components.schemas['DiagnosticsReport']?.properties ?? {})).toEqual(expect.arrayContaining(['generatedAt', 'checks', 'helper', 'device']));
  });
});
