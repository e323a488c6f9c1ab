import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_EMAIL, DEMO_PHONE_NAME, startDemo, type Demo } from '../../src/demo/index.js';
import { consoleClient, OWNER, setupOwner } from '../console/support.js';
import { apiClient, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { until, testScope } from '../helpers/phones.js';

const t = testScope();

let g: TestGateway | undefined;
const demos: Demo[] = [];
afterEach(async () => {
  for (const demo of demos.splice(0)) await demo.stop();
  await g?.stop();
  g = undefined;
});

describe('demo mode', () => {
  it('pairs a simulated phone, makes a key, and the printed call reaches its signed webhooks and timeline', async () => {
    // No HTTP_GATEWAY_API_KEY: the demo makes a key of its own, as on a fresh clone.
    g = await startTestGateway({ env: { HTTP_GATEWAY_API_KEY: '' } });
    const lines: string[] = [];
    const demo = await startDemo(g, (line) => lines.push(line));
    demos.push(demo);

    expect(demo.apiKey).toMatch(/^gw_/);
    expect(demo.banner).toContain(demo.deviceId);
    const curl = demo.banner.split('\n').find((l) => l.includes('curl -s -X POST'));
    expect(curl).toContain(`Bearer ${demo.apiKey}`);
    const body = JSON.parse(/-d '([^']+)'/.exec(curl ?? '')?.[1] ?? '{}') as Record<string, unknown>;
    expect(body).toEqual({ deviceId: demo.deviceId, to: '+15550100', webhookUrl: demo.webhookUrl });

    const api = apiClient(g.url, demo.apiKey);
    const devices = await api<{ devices: Array<{ id: string; connected: boolean }> }>('GET', '/v1/devices');
    expect(devices.body.devices).toEqual([expect.objectContaining({ id: demo.deviceId, connected: true })]);

    const placed = await api<{ call: { id: string } }>('POST', '/v1/calls', body);
    expect(placed.status).toBe(202);
    const callId = placed.body.call.id;
    await until(async () => lines.filter((l) => l.startsWith('webhook')), (w) => w.length >= 2, { timeoutMs: 8000, what: 'two webhooks printed' });
    expect(lines.filter((l) => l.startsWith('webhook'))).toEqual([
      `webhook  call.dialing  call ${callId} is dialing  (signature ok)`,
      `webhook  call.active  call ${callId} is active  (signature ok)`,
    ]);
    const events = await api<{ events: Array<{ event: string }> }>('GET', `/v1/calls/${callId}/events`);
    expect(events.body.events.map((e) => e.event)).toEqual(['call.dialing', 'call.active']);
  });

  it('replaces the previous demo phone and key when started again', async () => {
    g = await startTestGateway({ env: { HTTP_GATEWAY_API_KEY: '' } });
    const first = await startDemo(g, () => undefined);
    demos.push(first);
    const second = await startDemo(g, () => undefined);
    demos.push(second);
    const api = apiClient(g.url, second.apiKey);
    const devices = await api<{ devices: Array<{ id: string; name: string }> }>('GET', '/v1/devices');
    expect(devices.body.devices.filter((d) => d.name === DEMO_PHONE_NAME).map((d) => d.id)).toEqual([second.deviceId]);
    expect((await apiClient(g.url, first.apiKey)('GET', '/v1/devices')).status).toBe(401);
  });

  it('points at the environment key instead of making one when HTTP_GATEWAY_API_KEY is set', async () => {
    g = await startTestGateway();
    const demo = await startDemo(g, () => undefined);
    demos.push(demo);
    expect(demo.apiKey).toBe('$HTTP_GATEWAY_API_KEY');
    expect((await g.api<{ apiKeys: unknown[] }>('GET', '/v1/api-keys')).body.apiKeys).toEqual([]);
  });

  it('gives the console address and a ready owner sign-in, made without the setup token, new at every start', async () => {
    g = await startTestGateway();
    const first = await startDemo(g, () => undefined);
    demos.push(first);
    expect(first.banner).toContain(`console         ${g.url}/`);
    expect(first.signIn).toEqual({ email: DEMO_EMAIL, password: expect.stringMatching(/^[\w-]{12}$/) });
    expect(first.banner).toContain(`sign in as      ${DEMO_EMAIL}  password ${first.signIn!.password}`);
    const login = await consoleClient(g)('POST', '/v1/auth/login', first.signIn);
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ email: DEMO_EMAIL, role: 'owner' });
    // The first run is over: the setup token is gone.
    expect((await consoleClient(g)('GET', '/v1/auth/status')).body).toEqual({ setupRequired: false });

    const second = await startDemo(g, () => undefined);
    demos.push(second);
    expect(second.signIn!.password).not.toBe(first.signIn!.password);
    expect((await consoleClient(g)('POST', '/v1/auth/login', first.signIn)).status).toBe(401);
    expect((await consoleClient(g)('POST', '/v1/auth/login', second.signIn)).status).toBe(200);
  });

  it('leaves a data directory with someone else\'s accounts alone', async () => {
    g = await startTestGateway();
    await setupOwner(g);
    const demo = await startDemo(g, () => undefined);
    demos.push(demo);
    expect(demo.signIn).toBeNull();
    expect(demo.banner).toContain('your own account (forgot the password? npx voice-gateway reset-password <email>)');
    expect((await consoleClient(g)('POST', '/v1/auth/login', OWNER)).status).toBe(200);
  });
});

describe('npm run demo (the real process)', () => {
  it('shows the banner and the webhooks in the terminal, and keeps the log lines in DATA_DIR/demo.log', async () => {
    const dataDir = t.tempDir();
    const root = path.resolve(import.meta.dirname, '../..');
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(PORT|HOST|DATA_DIR|DATABASE_URL|HTTP_GATEWAY_API_KEY|PUBLIC_URL|WEBHOOK_URL|LOG_LEVEL|ADMIN_\w+)$/.test(name)));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--demo'], {
      cwd: root,
      env: { ...env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    t.defer(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    });
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const text = () => lines.join('\n');
    await until(async () => text(), (out) => out.includes('Webhooks received'), { timeoutMs: 15_000, what: `the banner (stderr: ${stderr})` });

    const url = /console {9}(http:\/\/[^/\s]+)\//.exec(text())![1]!;
    const [, email, password] = /sign in as {6}(\S+) {2}password (\S+)/.exec(text())!;
    expect((await fetch(`${url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })).status).toBe(200);
    const curl = /-H "Authorization: Bearer (\S+)" -H "Content-Type: application\/json" -d '([^']+)'/.exec(text())!;
    const placed = await fetch(`${url}/v1/calls`, { method: 'POST', headers: { authorization: `Bearer ${curl[1]}`, 'content-type': 'application/json' }, body: curl[2] });
    expect(placed.status).toBe(202);
    await until(async () => lines.filter((l) => l.startsWith('webhook')), (w) => w.length >= 1, { timeoutMs: 8000, what: 'a webhook printed' });

    expect(lines.filter((l) => l.trimStart().startsWith('{')), 'no log line in the terminal').toEqual([]);
    const logFile = path.join(dataDir, 'demo.log');
    expect(text()).toContain(`gateway log     ${logFile}`);
    await until(async () => existsSync(logFile) && readFileSync(logFile, 'utf8'), (log) => typeof log === 'string' && log.includes('"msg":"call placed"'), { what: 'the log file' });
    child.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
  }, 30_000);
});
