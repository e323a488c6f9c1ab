import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SETUP_TOKEN_FILE } from '../../src/accounts/index.js';
import { startTestGateway, TEST_API_KEY, type TestGateway } from '../helpers/gateway.js';
import { filesContaining } from '../platform/support.js';
import { consoleClient, cookieOf, OWNER, setupOwner, setupTokenOf, show, signIn } from './support.js';

let g: TestGateway | undefined;
afterEach(async () => {
  await g?.stop();
  g = undefined;
});

describe('first run', () => {
  it('reports setup as required until the owner exists, then refuses a second setup with 409', async () => {
    g = await startTestGateway();
    const c = consoleClient(g);
    const before = await c('GET', '/v1/auth/status');
    expect(before.status, show(before)).toBe(200);
    expect(before.body).toEqual({ setupRequired: true });

    const setup = await c('POST', '/v1/auth/setup', { email: ' Owner@Example.COM ', password: OWNER.password, setupToken: setupTokenOf(g) });
    expect(setup.status, show(setup)).toBe(201);
    expect(setup.body.user).toMatchObject({ email: 'owner@example.com', role: 'owner', lastLoginAt: null });
    expect(setup.headers.get('set-cookie')).toMatch(/^vg_session=/);

    expect((await c('GET', '/v1/auth/status')).body).toEqual({ setupRequired: false });
    const again = await c('POST', '/v1/auth/setup', { email: 'intruder@example.com', password: 'another password', setupToken: TEST_API_KEY });
    expect(again.status, show(again)).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'CONFLICT', message: expect.any(String) } });
    const intruder = await c('POST', '/v1/auth/login', { email: 'intruder@example.com', password: 'another password' });
    expect(intruder.status, show(intruder)).toBe(401);
  });

  it('lets only one of two simultaneous first-run requests win', async () => {
    g = await startTestGateway();
    const c = consoleClient(g);
    const setupToken = setupTokenOf(g);
    const results = await Promise.all(
      ['a@example.com', 'b@example.com', 'c@example.com'].map((email) => c('POST', '/v1/auth/setup', { email, password: OWNER.password, setupToken })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  it('validates the first account: an email and a password of at least 8 characters', async () => {
    g = await startTestGateway();
    const c = consoleClient(g);
    const res = await c('POST', '/v1/auth/setup', { email: 'not-an-email', password: 'short', setupToken: setupTokenOf(g) });
    expect(res.status, show(res)).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(['body.email', 'body.password']);
  });

  it('creates the owner from ADMIN_EMAIL and ADMIN_PASSWORD at start, once', async () => {
    const env = { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin password 1' };
    g = await startTestGateway({ env });
    const c = consoleClient(g);
    expect((await c('GET', '/v1/auth/status')).body).toEqual({ setupRequired: false });
    const login = await c('POST', '/v1/auth/login', { email: 'admin@example.com', password: 'admin password 1' });
    expect(login.status, show(login)).toBe(200);
    expect(login.body.user).toMatchObject({ email: 'admin@example.com', role: 'owner' });
    expect((await c('POST', '/v1/auth/setup', { ...OWNER, setupToken: TEST_API_KEY })).status).toBe(409);
    expect(existsSync(path.join(g.dataDir, SETUP_TOKEN_FILE)), 'no setup token once the owner exists').toBe(false);

    // A restart with other values changes nothing: the environment only seeds an empty gateway.
    const dataDir = g.dataDir;
    await g.close();
    g = await startTestGateway({ dataDir, env: { ADMIN_EMAIL: 'other@example.com', ADMIN_PASSWORD: 'other password 1' } });
    const c2 = consoleClient(g);
    expect((await c2('POST', '/v1/auth/login', { email: 'other@example.com', password: 'other password 1' })).status).toBe(401);
    expect((await c2('POST', '/v1/auth/login', { email: 'admin@example.com', password: 'admin password 1' })).status).toBe(200);
  });
});

describe('sign-in and sessions', () => {
  it('signs in, answers me, works on /v1 routes with the cookie alone, and signs out', async () => {
    g = await startTestGateway();
    await setupOwner(g);
    const login = await consoleClient(g)('POST', '/v1/auth/login', { email: 'OWNER@example.com', password: OWNER.password });
    expect(login.status, show(login)).toBe(200);
    const cookie = cookieOf(login);
    const c = consoleClient(g, cookie);

    const me = await c('GET', '/v1/auth/me');
    expect(me.status, show(me)).toBe(200);
    expect(me.body).toMatchObject({ credential: 'session', user: { email: 'owner@example.com', role: 'owner', lastLoginAt: expect.any(String) } });

    for (const path of ['/v1/settings', '/v1/calls', '/v1/devices', '/v1/api-keys', '/v1/webhook-deliveries', '/v1/users']) {
      const res = await c('GET', path);
      expect(res.status, `${path}: ${show(res)}`).toBe(200);
    }
    const created = await c('POST', '/v1/api-keys', { name: 'from the console' });
    expect(created.status, show(created)).toBe(201);
    const changed = await c('PUT', '/v1/settings', { webhookUrl: 'https://hooks.example.com/in' });
    expect(changed.status, show(changed)).toBe(200);

    const logout = await c('POST', '/v1/auth/logout');
    expect(logout.status, show(logout)).toBe(204);
    expect(logout.headers.get('set-cookie')).toMatch(/^vg_session=; .*Max-Age=0/);
    const after = await c('GET', '/v1/settings');
    expect(after.status, show(after)).toBe(401);
    expect(after.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  });

  it('sets an HttpOnly, SameSite=Strict cookie on path / that expires, Secure behind https', async () => {
    g = await startTestGateway();
    const setup = await consoleClient(g)('POST', '/v1/auth/setup', { ...OWNER, setupToken: setupTokenOf(g) });
    const header = setup.headers.get('set-cookie') ?? '';
    const parts = header.split(';').map((p) => p.trim());
    expect(parts[0]).toMatch(/^vg_session=[A-Za-z0-9_-]{40,}$/);
    expect(parts).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
    const maxAge = Number(parts.find((p) => p.startsWith('Max-Age='))?.slice(8));
    expect(maxAge).toBeGreaterThan(6 * 24 * 3600);
    expect(maxAge).toBeLessThanOrEqual(7 * 24 * 3600);
    expect(parts).not.toContain('Secure');

    const proxied = await consoleClient(g)('POST', '/v1/auth/login', OWNER, { 'x-forwarded-proto': 'https' });
    expect(proxied.headers.get('set-cookie')).toMatch(/; Secure/);
  });

  it('refuses a wrong password and an unknown email with the same 401', async () => {
    g = await startTestGateway();
    await setupOwner(g);
    const c = consoleClient(g);
    const wrong = await c('POST', '/v1/auth/login', { email: OWNER.email, password: 'wrong password' });
    const unknown = await c('POST', '/v1/auth/login', { email: 'nobody@example.com', password: OWNER.password });
    for (const res of [wrong, unknown]) {
      expect(res.status, show(res)).toBe(401);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toMatchObject({ error: { code: 'UNAUTHORIZED', message: 'The email or the password is wrong' } });
  });

  it('answers 429 with Retry-After after five failed attempts for one email, even with the right password', async () => {
    g = await startTestGateway();
    await setupOwner(g);
    const c = consoleClient(g);
    for (let i = 0; i < 5; i++) {
      const res = await c('POST', '/v1/auth/login', { email: OWNER.email, password: `wrong ${i}` });
      expect(res.status, `attempt ${i + 1}: ${show(res)}`).toBe(401);
    }
    const limited = await c('POST', '/v1/auth/login', OWNER);
    expect(limited.status, show(limited)).toBe(429);
    expect(limited.body).toMatchObject({ error: { code: 'RATE_LIMITED', message: expect.stringMatching(/try again/) } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another account from the same address is not locked out by these failures.
    const member = await c('POST', '/v1/users', { email: 'member@example.com', password: 'member password' }, { cookie: await setupCookieFromDb(g) });
    expect(member.status, show(member)).toBe(201);
    expect((await c('POST', '/v1/auth/login', { email: 'member@example.com', password: 'member password' })).status).toBe(200);
  });

  it('lets no more than five guesses through when they arrive all at once', async () => {
    g = await startTestGateway();
    await setupOwner(g);
    const c = consoleClient(g);
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => c('POST', '/v1/auth/login', { email: OWNER.email, password: `guess ${i}` })));
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it('refuses a state-changing request with the cookie from another origin, or with no Origin', async () => {
    g = await startTestGateway();
    const cookie = await setupOwner(g);
    const c = consoleClient(g, cookie);
    for (const headers of [{ origin: 'https://evil.example.com' }, { origin: 'null' }, { origin: g.url.replace('127.0.0.1', 'localhost') }, { origin: '' }]) {
      const res = await c('POST', '/v1/api-keys', { name: 'csrf' }, headers);
      expect(res.status, `${JSON.stringify(headers)}: ${show(res)}`).toBe(401);
      expect(res.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    }
    const noOrigin = await fetch(`${g.url}/v1/api-keys`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{"name":"x"}' });
    expect(noOrigin.status).toBe(401);
    const del = await c('DELETE', '/v1/api-keys/does-not-exist', undefined, { origin: 'https://evil.example.com' });
    expect(del.status, show(del)).toBe(401);
    expect((await g.api<{ apiKeys: unknown[] }>('GET', '/v1/api-keys')).body.apiKeys).toEqual([]);

    // Reads need no Origin (browsers send none on same-origin GETs); the cookie is SameSite=Strict.
    expect((await c('GET', '/v1/settings', undefined, { origin: 'https://evil.example.com' })).status).toBe(200);
    // Sign-in from another site's page is refused too.
    const foreign = await consoleClient(g)('POST', '/v1/auth/login', OWNER, { origin: 'https://evil.example.com' });
    expect(foreign.status, show(foreign)).toBe(403);
  });

  it('ends a session when it expires', async () => {
    g = await startTestGateway();
    const cookie = await setupOwner(g);
    const c = consoleClient(g, cookie);
    expect((await c('GET', '/v1/auth/me')).status).toBe(200);
    await g.store.db.updateTable('sessions').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    const res = await c('GET', '/v1/auth/me');
    expect(res.status, show(res)).toBe(401);
    expect(res.body.error.message).toMatch(/expired|sign in/i);
  });

  it('stores neither the password nor the session token in the clear', async () => {
    g = await startTestGateway();
    const cookie = await setupOwner(g);
    const token = cookie.split('=')[1]!;
    await signIn(g);
    const rows = await g.store.db.selectFrom('users').selectAll().execute();
    expect(rows[0]?.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    const sessions = await g.store.db.selectFrom('sessions').selectAll().execute();
    expect(sessions.map((s) => s.token_hash)).not.toContain(token);
    await g.close();
    expect(filesContaining(g.dataDir, OWNER.password)).toEqual([]);
    expect(filesContaining(g.dataDir, token)).toEqual([]);
  });

  it('never lets a session cookie stand in for a wrong API key', async () => {
    g = await startTestGateway();
    const cookie = await setupOwner(g);
    const res = await consoleClient(g, cookie)('GET', '/v1/settings', undefined, { authorization: 'Bearer wrong-key-0123456789' });
    expect(res.status, show(res)).toBe(401);
  });

  it('answers me for an API key without a user', async () => {
    g = await startTestGateway();
    const res = await g.api('GET', '/v1/auth/me');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user: null, credential: 'environment-key' });
  });
});

/** A fresh owner session straight from the store's users (the HTTP sign-in is rate limited in that test). */
async function setupCookieFromDb(g: TestGateway): Promise<string> {
  const owner = await g.store.db.selectFrom('users').select('id').where('role', '=', 'owner').executeTakeFirstOrThrow();
  const session = await g.services.accounts.createSession(owner.id);
  return `vg_session=${session.token}`;
}
