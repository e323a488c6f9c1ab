import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SETUP_TOKEN_FILE } from '../../src/accounts/index.js';
import { startTestGateway, TEST_API_KEY, type TestGateway } from '../helpers/gateway.js';
import { until } from '../helpers/phones.js';
import { ServerProcess, tempDir } from '../platform/support.js';
import { consoleClient, OWNER, setupTokenOf, show } from './support.js';

let g: TestGateway | undefined;
afterEach(async () => {
  await g?.stop();
  g = undefined;
});

const tokenFile = (gateway: TestGateway): string => path.join(gateway.dataDir, SETUP_TOKEN_FILE);

/** POST /v1/auth/setup as a script or another machine on the network would send it: no Origin, no cookie. */
const setup = (gateway: TestGateway, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${gateway.url}/v1/auth/setup`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (res) => {
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as { error?: { code: string; issues?: Array<{ path: string }> } } };
  });

describe('the first account needs proof of control of the server', () => {
  it('refuses whoever reaches the port without the setup token or an API key', async () => {
    g = await startTestGateway();
    for (const proof of [{}, { setupToken: 'vgsetup_guessed' }, { setupToken: setupTokenOf(g).replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A')) }, { setupToken: 'gw_notAKey0123456789abcdefghij' }]) {
      const res = await setup(g, { ...OWNER, ...proof });
      expect(res.status, `${JSON.stringify(proof)}: ${show(res)}`).toBe(401);
      expect(res.body).toMatchObject({ error: { code: 'UNAUTHORIZED', issues: [{ path: 'body.setupToken' }] } });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const wrongHeader = await setup(g, OWNER, { authorization: 'Bearer wrong-key-0123456789' });
    expect(wrongHeader.status, show(wrongHeader)).toBe(401);
    expect((await consoleClient(g)('GET', '/v1/auth/status')).body).toEqual({ setupRequired: true });
    expect(await g.store.db.selectFrom('users').selectAll().execute()).toEqual([]);
  });

  it('accepts the one-time token from DATA_DIR/setup-token (mode 0600) once, then removes it', async () => {
    g = await startTestGateway();
    const file = tokenFile(g);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = setupTokenOf(g);
    expect(token).toMatch(/^vgsetup_[A-Za-z0-9_-]{32}$/);

    const res = await setup(g, { ...OWNER, setupToken: token });
    expect(res.status, show(res)).toBe(201);
    expect(res.text).not.toContain(token);
    expect(existsSync(file)).toBe(false);
    const again = await setup(g, { email: 'second@example.com', password: OWNER.password, setupToken: token });
    expect(again.status, show(again)).toBe(409);
  });

  it.for([
    ['the environment key in setupToken', async () => ({ body: { setupToken: TEST_API_KEY }, headers: {} })],
    ['the environment key as Authorization: Bearer', async () => ({ body: {}, headers: { authorization: `Bearer ${TEST_API_KEY}` } })],
    ['a gw_ key as x-api-key', async (gw: TestGateway) => ({ body: {}, headers: { 'x-api-key': (await gw.api<{ apiKey: { key: string } }>('POST', '/v1/api-keys', { name: 'setup' })).body.apiKey.key } })],
  ] as const)('accepts %s instead, and then forgets the setup token', async ([, proof]) => {
    g = await startTestGateway();
    const { body, headers } = await proof(g);
    const res = await setup(g, { ...OWNER, ...body }, headers);
    expect(res.status, show(res)).toBe(201);
    expect(res.body).toMatchObject({ user: { email: OWNER.email, role: 'owner' } });
    expect(existsSync(tokenFile(g))).toBe(false);
  });

  it('shows the operator the token outside the log, which only says where its file is; a new one at each start, an older one stops working', async () => {
    g = await startTestGateway({ captureLogs: true });
    const first = setupTokenOf(g);
    expect(g.notices).toEqual([expect.stringContaining(first)]);
    expect(g.notices[0]).toContain(`${g.url}/`);
    expect(g.notices[0]).toContain(tokenFile(g));
    expect(g.logs.filter((line) => line.includes('vgsetup_'))).toEqual([]);
    const said = g.logs.filter((line) => line.includes('No console account yet'));
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0]!)).toMatchObject({ level: 40, setupTokenFile: tokenFile(g), msg: expect.stringContaining('shown on standard error') });
    const status = await consoleClient(g)('GET', '/v1/auth/status');
    expect(status.text).not.toContain(first);

    const { dataDir } = g;
    await g.close();
    g = await startTestGateway({ dataDir, captureLogs: true });
    const second = setupTokenOf(g);
    expect(second).not.toBe(first);
    expect(g.notices).toEqual([expect.stringContaining(second)]);
    expect(g.logs.filter((line) => line.includes(second))).toEqual([]);
    expect((await setup(g, { ...OWNER, setupToken: first })).status).toBe(401);
    expect((await setup(g, { ...OWNER, setupToken: second })).status).toBe(201);
    await g.close();
    g = await startTestGateway({ dataDir, captureLogs: true });
    expect(existsSync(tokenFile(g))).toBe(false);
    expect(g.logs.filter((line) => line.includes('setup token'))).toEqual([]);
    await g.close();
    rmSync(dataDir, { recursive: true, force: true });
    g = undefined;
  });

  it('makes no token when ADMIN_EMAIL and ADMIN_PASSWORD create the owner, and removes a stale one', async () => {
    const dataDir = tempDir();
    writeFileSync(path.join(dataDir, SETUP_TOKEN_FILE), 'vgsetup_stale\n', { mode: 0o600 });
    g = await startTestGateway({ dataDir, captureLogs: true, env: { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin password 1' } });
    expect(existsSync(tokenFile(g))).toBe(false);
    expect(g.logs.filter((line) => line.includes('setup token'))).toEqual([]);
    expect((await setup(g, { ...OWNER, setupToken: 'vgsetup_stale' })).status).toBe(409);
    await g.close();
    rmSync(dataDir, { recursive: true, force: true });
    g = undefined;
  });

  it('shows the token on the real server\'s standard error at start, never in its log on standard output', async ({ onTestFinished }) => {
    const dataDir = tempDir();
    const server = new ServerProcess({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'trace' });
    onTestFinished(async () => {
      await server.kill();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const line = await server.waitForLog((l) => l.msg.startsWith('No console account yet'));
    const token = readFileSync(path.join(dataDir, SETUP_TOKEN_FILE), 'utf8').trim();
    expect(line.msg).toContain(path.join(dataDir, SETUP_TOKEN_FILE));
    // Two pipes: what the server wrote to standard error first may reach the test second.
    await until(() => Promise.resolve(server.stderr), (text) => text.includes(`enter the setup token ${token} `), { what: 'the token on standard error' });
    expect(server.stdout.filter((text) => text.includes('vgsetup_'))).toEqual([]);
  });
});
