import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callInState, until, pairingCode, show, testScope, type Call } from '../helpers/phones.js';
import type { Endpoint } from '../helpers/gateway.js';
import { JvmPhone } from './jvm-phone.js';
import { skipAndroid } from './support.js';

interface Stored {
  diagnostics: { receivedAt: string; report: Report } | null;
}
interface Report {
  trigger: string;
  app: { version: string };
  device: { model: string; sdk: number; release: string };
  checks: Array<{ name: string; ok: boolean | null; detail?: string }>;
  gateway: { link: string };
  helper: { state: string; uid: number | null; capabilities: unknown; diagnostics: { engine?: string; attempts: unknown[]; captures?: number } | null };
}

const FAST = { helperRetry: 200, helperPing: 300, helperTimeout: 500 };

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const read = (g: Endpoint, deviceId: string) => g.api<Stored>('GET', `/v1/devices/${deviceId}/diagnostics`);

/**
 * The self-test end to end: the app's real SelfTest on the JVM phone (a JVM probe in place of the
 * platform, the fake helper's DIAGNOSTICS over the real framing) reaches GET /v1/devices/{id}/diagnostics.
 */
describe.skipIf(skipAndroid)("the JVM phone's self-test", () => {
  const t = testScope();

  it("reaches the gateway after the helper starts, with the fake helper's report and no token, and again after a call and on demand", async () => {
    const g = await t.gateway();
    const phone = t.track(await JvmPhone.start({ url: g.url, code: await pairingCode(g), args: ['--helper', 'fake', '--ring-ms', '20'], timings: FAST }));
    const deviceId = (await phone.connected(10_000))['deviceId'] as string;

    const first = await until(() => read(g, deviceId), (r) => r.body.diagnostics !== null, { timeoutMs: 10_000, what: 'the first report' });
    expect(first.status, show(first)).toBe(200);
    const report = first.body.diagnostics!.report;
    expect(report.trigger).toBe('helper_started');
    expect(report.app.version).toBe('0.1.0-jvm');
    expect(report.device).toMatchObject({ model: 'App core on the JVM', sdk: 34, release: '14' });
    const ok = Object.fromEntries(report.checks.map((c) => [c.name, c.ok]));
    expect(ok).toMatchObject({ dialer_role: true, 'permission:android.permission.CALL_PHONE': true, battery_exemption: true, foreground_service: true, helper: true });
    expect(report.helper).toMatchObject({ state: 'running', capabilities: { method: 'simulated' }, diagnostics: { engine: 'fake', attempts: [] } });
    // The uid Binder reported for the process that announced the helper: the shell's.
    expect(report.helper.uid).toBe(2000);

    // No credential anywhere in what the gateway serves, nor in what the phone sent.
    const token = (JSON.parse(readFileSync(path.join(phone.stateDir, 'credentials.json'), 'utf8')) as { deviceToken: string }).deviceToken;
    expect(token).toMatch(/^dt_/);
    const body = (await read(g, deviceId)).text;
    expect(body).not.toContain(token);
    expect(body.toLowerCase()).not.toContain('token');
    const sent = phone.messages('out', 'diagnostics');
    expect(sent.length).toBeGreaterThanOrEqual(1);
    for (const m of sent) expect(JSON.stringify(m)).not.toContain(token);

    // A call: the helper's capture attempt sends a new report, which the phone passes on.
    const res = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId, to: '+15550100' });
    expect(res.status, show(res)).toBe(202);
    await callInState(g, res.body.call.id, 'active');
    const after = await until(() => read(g, deviceId), (r) => (r.body.diagnostics?.report.helper.diagnostics?.captures ?? 0) >= 1, { timeoutMs: 10_000, what: 'the report after the capture' });
    expect(after.body.diagnostics!.report.trigger).toBe('helper_report');
    expect(after.body.diagnostics!.report.helper.diagnostics?.attempts).toContainEqual(expect.objectContaining({ way: 'simulated@16000', result: 'opened' }));

    // On demand.
    await phone.request('selfTest');
    await until(() => read(g, deviceId), (r) => r.body.diagnostics?.report.trigger === 'manual', { timeoutMs: 10_000, what: 'the report on demand' });
  });

  it('keeps the latest report while the gateway is away and sends it once welcomed again', async () => {
    const dataDir = t.tempDir();
    const port = await freePort();
    const env = { PORT: String(port) };
    const first = await t.gateway({ dataDir, env });
    const phone = t.track(await JvmPhone.start({ url: first.url, code: await pairingCode(first) }));
    const deviceId = (await phone.connected(10_000))['deviceId'] as string;
    // The tone port runs from the start: its report comes by itself.
    await until(() => read(first, deviceId), (r) => r.body.diagnostics?.report.trigger === 'helper_started', { timeoutMs: 10_000, what: 'the first report' });
    await first.stop();
    await phone.nextStatus((s) => s['link'] !== 'CONNECTED', 10_000, 'offline');

    await phone.request('selfTest');
    const again = await t.gateway({ dataDir, env });
    await phone.nextStatus((s) => s['link'] === 'CONNECTED', 10_000, 'back');
    const stored = await until(() => read(again, deviceId), (r) => r.body.diagnostics?.report.trigger === 'manual', { timeoutMs: 10_000, what: 'the report made offline' });
    // Made while the gateway was away, and said so.
    expect(stored.body.diagnostics!.report.gateway.link).not.toBe('connected');
  });
});
