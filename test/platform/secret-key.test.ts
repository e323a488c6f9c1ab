import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { ServerProcess, show, storedContaining, tempDir } from './support.js';

const ASSISTANT_KEY = 'sk-sealed-assistant-key-0123456789';
const WEBHOOK_SECRET = 'whsec_c2VhbGVkLXdlYmhvb2stc2VjcmV0LTMyLWJ5dGVzIQ==';

const newKey = (): string => randomBytes(32).toString('base64');

const dirs: string[] = [];
const gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const dir = (): string => {
  const d = tempDir();
  dirs.push(d);
  return d;
};

async function start(dataDir: string, env: Record<string, string> = {}, captureLogs = false): Promise<TestGateway> {
  const g = await startTestGateway({ dataDir, env, captureLogs });
  gateways.push(g);
  return g;
}

async function stop(g: TestGateway): Promise<void> {
  gateways.splice(gateways.indexOf(g), 1);
  await g.close();
}

/** Sets both sealed settings, so a later start has something only the right key opens. */
async function storeSecrets(g: TestGateway): Promise<void> {
  const res = await g.api('PUT', '/v1/settings', { assistantApiKey: ASSISTANT_KEY, webhookSecret: WEBHOOK_SECRET });
  expect(res.status, show(res)).toBe(200);
}

async function expectSecrets(g: TestGateway): Promise<void> {
  const res = await g.api('GET', '/v1/settings');
  expect(res.body.settings).toMatchObject({
    assistantApiKey: { configured: true, hint: ASSISTANT_KEY.slice(-4), source: 'console' },
    webhookSecret: { configured: true, hint: WEBHOOK_SECRET.slice(-4), source: 'console' },
  });
  // The hint could come from anywhere; signing needs the whole secret, opened with the key.
  expect(g.services.settings.webhookSecret()).toBe(WEBHOOK_SECRET);
  expect(g.services.settings.assistantApiKey()).toBe(ASSISTANT_KEY);
}

describe('the secret key outside DATA_DIR', () => {
  it('seals with SECRET_KEY and makes no DATA_DIR/secret.key; a restart with it opens everything', async () => {
    const dataDir = dir();
    const env = { SECRET_KEY: newKey() };
    const g = await start(dataDir, env);
    await storeSecrets(g);
    await stop(g);
    expect(existsSync(path.join(dataDir, 'secret.key'))).toBe(false);
    for (const secret of [ASSISTANT_KEY, WEBHOOK_SECRET, env.SECRET_KEY]) expect(await storedContaining(dataDir, secret)).toEqual([]);
    await expectSecrets(await start(dataDir, env));
  });

  it('reads the key from SECRET_KEY_FILE, and warns when a key still sits in DATA_DIR', async () => {
    const dataDir = dir();
    const keyDir = dir();
    const first = await start(dataDir);
    await storeSecrets(first);
    await stop(first);
    // The documented move: the generated key file goes elsewhere, unchanged.
    const keyFile = path.join(keyDir, 'voice-gateway.key');
    writeFileSync(keyFile, readFileSync(path.join(dataDir, 'secret.key')));
    const copied = await start(dataDir, { SECRET_KEY_FILE: keyFile }, true);
    await expectSecrets(copied);
    expect(copied.logs.some((line) => line.includes('"level":40') && line.includes('secret.key is not used'))).toBe(true);
    await stop(copied);
    renameSync(path.join(dataDir, 'secret.key'), path.join(keyDir, 'old.key'));
    const moved = await start(dataDir, { SECRET_KEY_FILE: keyFile }, true);
    await expectSecrets(moved);
    expect(moved.logs.filter((line) => line.includes('"level":40') && line.includes('secret'))).toEqual([]);
  });

  it('refuses to start with a wrong key, naming it and the way out, and loses nothing', async () => {
    const dataDir = dir();
    const right = { SECRET_KEY: newKey() };
    const g = await start(dataDir, right);
    await storeSecrets(g);
    await stop(g);
    await expect(start(dataDir, { SECRET_KEY: newKey() })).rejects.toThrow(/the key from SECRET_KEY does not open .*the assistant key.*SECRET_KEY_PREVIOUS/);
    await expect(start(dataDir, { SECRET_KEY: newKey(), SECRET_KEY_PREVIOUS: newKey() })).rejects.toThrow(/neither the key from SECRET_KEY nor SECRET_KEY_PREVIOUS/);
    await expect(start(dataDir)).rejects.toThrow(/secret\.key .* is missing, but .* were sealed with a key: restore the file/);
    expect(existsSync(path.join(dataDir, 'secret.key')), 'a failed start makes no key of its own').toBe(false);
    await expectSecrets(await start(dataDir, right));
  });

  it('rotates: SECRET_KEY_PREVIOUS opens the old values once, they are sealed again, and the old key no longer opens them', async () => {
    const dataDir = dir();
    const oldKey = newKey();
    const newOne = newKey();
    const g = await start(dataDir, { SECRET_KEY: oldKey });
    await storeSecrets(g);
    await stop(g);

    const rotating = await start(dataDir, { SECRET_KEY: newOne, SECRET_KEY_PREVIOUS: oldKey }, true);
    await expectSecrets(rotating);
    expect(rotating.logs.find((line) => line.includes('sealed again with the new key'))).toMatch(/"resealed":3/);
    await stop(rotating);

    const rotated = await start(dataDir, { SECRET_KEY: newOne });
    await expectSecrets(rotated);
    await stop(rotated);
    await expect(start(dataDir, { SECRET_KEY: oldKey })).rejects.toThrow(/SECRET_KEY_PREVIOUS/);
  });

  it('refuses SECRET_KEY_PREVIOUS without the new key, naming the variables, and makes no key of its own', async () => {
    const dataDir = dir();
    const old = newKey();
    const g = await start(dataDir, { SECRET_KEY: old });
    await storeSecrets(g);
    await stop(g);
    const refused = start(dataDir, { SECRET_KEY_PREVIOUS: old });
    await expect(refused).rejects.toThrow(/^Invalid environment variable SECRET_KEY_PREVIOUS: .*SECRET_KEY or SECRET_KEY_FILE/);
    expect(existsSync(path.join(dataDir, 'secret.key'))).toBe(false);
    await expectSecrets(await start(dataDir, { SECRET_KEY: old }));
  });

  it('rotates away from DATA_DIR/secret.key to SECRET_KEY', async () => {
    const dataDir = dir();
    const g = await start(dataDir);
    await storeSecrets(g);
    await stop(g);
    const oldKey = readFileSync(path.join(dataDir, 'secret.key'), 'utf8');
    rmSync(path.join(dataDir, 'secret.key'));
    const key = newKey();
    await stop(await start(dataDir, { SECRET_KEY: key, SECRET_KEY_PREVIOUS: oldKey }));
    await expectSecrets(await start(dataDir, { SECRET_KEY: key }));
  });

  it('starts with a new key once the sealed values of a lost one are deleted, as docs/operations.md says', async () => {
    const dataDir = dir();
    const g = await start(dataDir, { SECRET_KEY: newKey() });
    await storeSecrets(g);
    await g.store.db.deleteFrom('settings').where('key', 'in', ['webhookSecret', 'assistantApiKey', 'generated.webhookSecret']).execute();
    await stop(g);
    const fresh = await start(dataDir, { SECRET_KEY: newKey() });
    const res = await fresh.api('GET', '/v1/settings');
    expect(res.body.settings).toMatchObject({ assistantApiKey: { configured: false }, webhookSecret: { configured: true, source: 'generated' } });
  });

  it('the real server refuses a wrong key with one line on stderr and a non-zero exit', async ({ onTestFinished }) => {
    const dataDir = dir();
    const g = await start(dataDir, { SECRET_KEY: newKey() });
    await storeSecrets(g);
    await stop(g);
    const server = new ServerProcess({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', SECRET_KEY: newKey() });
    onTestFinished(() => server.kill());
    const { code } = await server.exited;
    expect(code).not.toBe(0);
    const lines = server.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines, server.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^voice-gateway: .*SECRET_KEY.*SECRET_KEY_PREVIOUS/);
    expect(server.lines.map((l) => l.msg)).not.toContain('gateway listening');
  });
});
