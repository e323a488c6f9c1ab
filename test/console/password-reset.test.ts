import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resetPassword, type CommandIO } from '../../src/commands/reset-password.js';
import type { TestGateway } from '../helpers/gateway.js';
import { databaseFor, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { storedContaining, testScope } from '../helpers/phones.js';
import { consoleClient, cookieOf, OWNER, setupOwner, show } from './support.js';

const t = testScope();
const NEW_PASSWORD = 'a new horse, staple battery';

/** The environment the gateway itself runs with, as an operator's shell has it. */
async function gatewayEnv(g: TestGateway, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return { DATA_DIR: g.dataDir, PORT: '8080', ...(TEST_DATABASE_URL ? { DATABASE_URL: (await databaseFor(g.dataDir)).url } : {}), ...extra };
}

/** Runs the command as the CLI does, in this process, recording what it prints. */
async function run(args: string[], env: Record<string, string>, password = ''): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = { out: (l) => out.push(l), err: (l) => err.push(l), readPassword: () => Promise.resolve(password) };
  return { code: await resetPassword(args, env, io), out, err };
}

const tokenOf = (lines: string[]): string => /[?&]token=([\w-]+)/.exec(lines.join('\n'))?.[1] ?? '';

describe('voice-gateway reset-password <email>', () => {
  it('prints a one-time link that sets a new password, signs in and ends the old sessions', async () => {
    const g = await t.gateway();
    const oldSession = await setupOwner(g);
    const { code, out, err } = await run([OWNER.email.toUpperCase()], await gatewayEnv(g, { PUBLIC_URL: 'https://gw.example.com' }));
    expect(code, err.join('\n')).toBe(0);
    expect(out.join('\n')).toMatch(/^Open this link to set a new password for owner@example\.com \(it works once, until \d{4}-.*\):\n {2}https:\/\/gw\.example\.com\/reset-password\?token=vgreset_[\w-]{40,}$/);
    const token = tokenOf(out);
    // Only its hash is stored.
    expect(await storedContaining(g.dataDir, token)).toEqual([]);

    const console = consoleClient(g);
    const reset = await console('POST', '/v1/auth/password-reset', { token, password: NEW_PASSWORD });
    expect(reset.status, show(reset)).toBe(200);
    expect(reset.body.user).toMatchObject({ email: OWNER.email, role: 'owner' });
    const me = await consoleClient(g, cookieOf(reset))('GET', '/v1/auth/me');
    expect(me.body.user.email).toBe(OWNER.email);

    expect((await consoleClient(g, oldSession)('GET', '/v1/auth/me')).status).toBe(401);
    expect((await console('POST', '/v1/auth/login', OWNER)).status).toBe(401);
    expect((await console('POST', '/v1/auth/login', { email: OWNER.email, password: NEW_PASSWORD })).status).toBe(200);

    const again = await console('POST', '/v1/auth/password-reset', { token, password: 'yet another password' });
    expect(again.status, show(again)).toBe(401);
    expect(again.body.error.issues).toEqual([expect.objectContaining({ path: 'body.token', message: 'has expired or was used already' })]);
  });

  it('builds the link from PUBLIC_URL, never from the saved publicUrl, keeps only the newest link, and refuses bad input over HTTP', async () => {
    const g = await t.gateway();
    await setupOwner(g);
    await g.api('PUT', '/v1/settings', { publicUrl: 'https://saved.example.com/' });
    const local = await run([OWNER.email], await gatewayEnv(g));
    expect(local.out[1]).toMatch(/^ {2}http:\/\/localhost:8080\/reset-password\?token=vgreset_/);
    expect(local.out[2]).toBe(`(PUBLIC_URL is not set: from elsewhere, open /reset-password?token=${tokenOf(local.out)} on the address you reach the gateway at.)`);
    const env = await gatewayEnv(g, { PUBLIC_URL: 'https://env.example.com/' });
    const first = await run([OWNER.email], env);
    const second = await run([OWNER.email], env);
    expect(second.out).toHaveLength(2);
    expect(second.out[1]).toMatch(/^ {2}https:\/\/env\.example\.com\/reset-password\?token=/);
    const console = consoleClient(g);
    expect((await console('POST', '/v1/auth/password-reset', { token: tokenOf(first.out), password: NEW_PASSWORD })).status).toBe(401);
    const short = await console('POST', '/v1/auth/password-reset', { token: tokenOf(second.out), password: 'short' });
    expect(short.status, show(short)).toBe(400);
    expect(short.body.error.issues).toEqual([expect.objectContaining({ path: 'body.password', message: 'must be at least 8 characters' })]);
    const foreign = await console('POST', '/v1/auth/password-reset', { token: tokenOf(second.out), password: NEW_PASSWORD }, { origin: 'https://evil.example' });
    expect(foreign.status, show(foreign)).toBe(403);
    // Refused attempts leave the link working.
    expect((await console('POST', '/v1/auth/password-reset', { token: tokenOf(second.out), password: NEW_PASSWORD })).status).toBe(200);
  });

  it('lets a link work once, even when it is redeemed several times at once', async () => {
    const g = await t.gateway();
    await setupOwner(g);
    const token = tokenOf((await run([OWNER.email], await gatewayEnv(g))).out);
    const console = consoleClient(g);
    const passwords = Array.from({ length: 6 }, (_, i) => `parallel password ${i}`);
    const answers = await Promise.all(passwords.map((password) => console('POST', '/v1/auth/password-reset', { token, password })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401, 401, 401, 401]);
    const winner = passwords[answers.findIndex((a) => a.status === 200)]!;
    for (const password of passwords) {
      const login = await console('POST', '/v1/auth/login', { email: OWNER.email, password });
      expect(login.status, password).toBe(password === winner ? 200 : 401);
    }
  });

  it('sets the password at once with --password, and says so when the account or the arguments are wrong', async () => {
    const g = await t.gateway();
    const session = await setupOwner(g);
    const env = await gatewayEnv(g);
    const set = await run([OWNER.email, '--password'], env, `${NEW_PASSWORD}\n`);
    expect(set.code, set.err.join('\n')).toBe(0);
    expect(set.out).toEqual(['The password of owner@example.com is set. Their sessions have ended; they sign in with the new password.']);
    expect((await consoleClient(g, session)('GET', '/v1/auth/me')).status).toBe(401);
    expect((await consoleClient(g)('POST', '/v1/auth/login', { email: OWNER.email, password: NEW_PASSWORD })).status).toBe(200);

    const tooShort = await run([OWNER.email, '--password'], env, 'short');
    expect(tooShort).toMatchObject({ code: 1, err: ['The password must be 8 to 200 characters long; nothing was changed.'] });
    expect(await run(['nobody@example.com'], env)).toMatchObject({ code: 1, err: ['No console account has the email nobody@example.com.'] });
    expect((await run([], env)).code).toBe(2);
    expect((await run(['--help'], env)).err.join('\n')).toMatch(/^Usage: voice-gateway reset-password <email>/);
  });

  it('runs as `voice-gateway reset-password` beside the running gateway', async () => {
    const g = await t.gateway();
    await setupOwner(g);
    const root = path.resolve(import.meta.dirname, '../..');
    const child = spawn(process.execPath, [path.join(root, 'bin/voice-gateway.js'), 'reset-password', OWNER.email], {
      cwd: root,
      env: { ...process.env, ...(await gatewayEnv(g)), LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, err).toBe(0);
    const res = await consoleClient(g)('POST', '/v1/auth/password-reset', { token: tokenOf([out]), password: NEW_PASSWORD });
    expect(res.status, show(res)).toBe(200);
  });
});
