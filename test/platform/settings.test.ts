import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { show, storedContaining, tempDir } from './support.js';
import type { Settings } from '../../src/http/api-types.js';
import { TEST_DATABASE_URL } from '../helpers/postgres.js';

const ENV = {
  PUBLIC_URL: 'https://env-public.example',
  WEBHOOK_URL: 'https://env-hooks.example/events',
  DOCS_URL: 'https://env-docs.example',
  INCOMING_STREAM_URL: 'wss://env-agent.example/stream',
  INCOMING_STREAM_FORMAT: 'vendor',
  ASSISTANT_API_KEY: 'sk-env-assistant-key-EnV1',
  ASSISTANT_MODEL: 'env-model',
  WEBHOOK_SECRET: 'whsec_ZW52LXdlYmhvb2stc2VjcmV0LW9mLTMyLWJ5dGVzIQ==',
};

const CONSOLE_ASSISTANT_KEY = 'sk-console-assistant-key-9f8e7d6c5b4aQz7X';
const CONSOLE_WEBHOOK_SECRET = 'whsec_Y29uc29sZS13ZWJob29rLXNlY3JldC1vZi0zMi1ieXQ=';

describe('settings', () => {
  const gateways: TestGateway[] = [];
  const dirs: string[] = [];

  const start = async (options: Parameters<typeof startTestGateway>[0] = {}): Promise<TestGateway> => {
    const g = await startTestGateway(options);
    gateways.push(g);
    return g;
  };
  const read = async (g: TestGateway): Promise<Settings> => {
    const res = await g.api<{ settings: Settings }>('GET', '/v1/settings');
    expect(res.status, show(res)).toBe(200);
    return res.body.settings;
  };
  const put = async (g: TestGateway, patch: Record<string, unknown>): Promise<Settings> => {
    const res = await g.api<{ settings: Settings }>('PUT', '/v1/settings', patch);
    expect(res.status, `PUT ${JSON.stringify(patch)}: ${show(res)}`).toBe(200);
    return res.body.settings;
  };

  afterEach(async () => {
    for (const g of gateways.splice(0)) await g.stop();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('shows every Settings field of the spec plus webhookSecret, with nothing configured', async () => {
    const g = await start();
    const settings = await read(g);
    expect(settings).toEqual({
      publicUrl: null,
      webhookUrl: null,
      docsUrl: null,
      incomingStreamUrl: null,
      incomingStreamFormat: 'raw',
      assistantModel: null,
      assistantApiKey: { configured: false, hint: null, source: null },
      webhookSecret: { configured: true, hint: expect.stringMatching(/^.{4}$/), source: 'generated' },
      sources: { publicUrl: 'default', webhookUrl: 'default', docsUrl: 'default', incomingStreamUrl: 'default', incomingStreamFormat: 'default', assistantModel: 'default' },
    });
  });

  it('falls back to the environment for every field', async () => {
    const g = await start({ env: ENV });
    expect(await read(g)).toEqual({
      publicUrl: ENV.PUBLIC_URL,
      webhookUrl: ENV.WEBHOOK_URL,
      docsUrl: ENV.DOCS_URL,
      incomingStreamUrl: ENV.INCOMING_STREAM_URL,
      incomingStreamFormat: 'vendor',
      assistantModel: ENV.ASSISTANT_MODEL,
      assistantApiKey: { configured: true, hint: 'EnV1', source: 'env' },
      webhookSecret: { configured: true, hint: ENV.WEBHOOK_SECRET.slice(-4), source: 'env' },
      sources: { publicUrl: 'env', webhookUrl: 'env', docsUrl: 'env', incomingStreamUrl: 'env', incomingStreamFormat: 'env', assistantModel: 'env' },
    });
  });

  it('changes only the fields sent', async () => {
    const g = await start({ env: ENV });
    const first = await put(g, { publicUrl: 'https://console-public.example' });
    const fromEnv = await start({ env: ENV }).then(read);
    expect(first).toEqual({ ...fromEnv, publicUrl: 'https://console-public.example', sources: { ...fromEnv.sources, publicUrl: 'console' } });

    const second = await put(g, { webhookUrl: 'http://hooks.internal:8080/x', assistantApiKey: CONSOLE_ASSISTANT_KEY });
    expect(second.publicUrl).toBe('https://console-public.example');
    expect(second.webhookUrl).toBe('http://hooks.internal:8080/x');
    expect(second.docsUrl).toBe(ENV.DOCS_URL);
    expect(second.incomingStreamFormat).toBe('vendor');
    expect(second.sources).toMatchObject({ publicUrl: 'console', webhookUrl: 'console', docsUrl: 'env' });
    expect(second.assistantApiKey).toEqual({ configured: true, hint: CONSOLE_ASSISTANT_KEY.slice(-4), source: 'console' });

    const unchanged = await put(g, {});
    expect(unchanged).toEqual(second);
    expect(await read(g)).toEqual(second);
  });

  it('clears a field back to the environment default with an empty string', async () => {
    const g = await start({ env: ENV });
    await put(g, {
      publicUrl: 'https://console-public.example',
      webhookUrl: 'https://console-hooks.example',
      docsUrl: 'https://console-docs.example',
      incomingStreamUrl: 'ws://127.0.0.1:9000/agent',
      incomingStreamFormat: 'raw',
      assistantModel: 'console-model',
      assistantApiKey: CONSOLE_ASSISTANT_KEY,
      webhookSecret: CONSOLE_WEBHOOK_SECRET,
    });
    const cleared = await put(g, {
      publicUrl: '',
      webhookUrl: '',
      docsUrl: '',
      incomingStreamUrl: '',
      incomingStreamFormat: '',
      assistantModel: '',
      assistantApiKey: '',
      webhookSecret: '',
    });
    expect(cleared).toEqual(await start({ env: ENV }).then(read));
    expect(cleared.assistantApiKey).toEqual({ configured: true, hint: 'EnV1', source: 'env' });
    expect(cleared.webhookSecret.source).toBe('env');
  });

  it('clears to nothing when the environment has no default', async () => {
    const g = await start();
    await put(g, { publicUrl: 'https://console-public.example', incomingStreamFormat: 'vendor', assistantApiKey: CONSOLE_ASSISTANT_KEY });
    const cleared = await put(g, { publicUrl: '', incomingStreamFormat: '', assistantApiKey: '' });
    expect(cleared.publicUrl).toBeNull();
    expect(cleared.incomingStreamFormat).toBe('raw');
    expect(cleared.sources).toMatchObject({ publicUrl: 'default', incomingStreamFormat: 'default' });
    expect(cleared.assistantApiKey).toEqual({ configured: false, hint: null, source: null });
  });

  it('never returns a secret in full, only its last 4 characters', async () => {
    const g = await start({ env: ENV });
    const put1 = await g.api('PUT', '/v1/settings', { assistantApiKey: CONSOLE_ASSISTANT_KEY, webhookSecret: CONSOLE_WEBHOOK_SECRET });
    const get1 = await g.api('GET', '/v1/settings');
    for (const res of [put1, get1]) {
      expect(res.status, show(res)).toBe(200);
      for (const secret of [CONSOLE_ASSISTANT_KEY, CONSOLE_WEBHOOK_SECRET, ENV.ASSISTANT_API_KEY, ENV.WEBHOOK_SECRET]) {
        expect(res.text).not.toContain(secret);
        expect(res.text).not.toContain(secret.slice(0, -4));
      }
    }
    expect(get1.body).toMatchObject({
      settings: {
        assistantApiKey: { configured: true, hint: CONSOLE_ASSISTANT_KEY.slice(-4), source: 'console' },
        webhookSecret: { configured: true, hint: CONSOLE_WEBHOOK_SECRET.slice(-4), source: 'console' },
      },
    });
  });

  it('rejects invalid URLs, stream URLs and formats with 400, changing nothing, and does not echo a rejected secret', async () => {
    const g = await start();
    await put(g, { publicUrl: 'https://kept.example' });
    const before = await read(g);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ publicUrl: 'not a url' }, 'body.publicUrl'],
      [{ publicUrl: 'ftp://files.example' }, 'body.publicUrl'],
      [{ webhookUrl: 'javascript:alert(1)' }, 'body.webhookUrl'],
      [{ docsUrl: 'docs.example' }, 'body.docsUrl'],
      [{ incomingStreamUrl: 'https://agent.example' }, 'body.incomingStreamUrl'],
      [{ incomingStreamFormat: 'mp3' }, 'body.incomingStreamFormat'],
      [{ incomingStreamFormat: 'RAW' }, 'body.incomingStreamFormat'],
      [{ publicUrl: 42 }, 'body.publicUrl'],
      [{ webhookSecret: 'not-a-whsec-0123456789abcdefghijklmnopqrstuvwxyz' }, 'body.webhookSecret'],
      [{ assistantApiKey: 'short' }, 'body.assistantApiKey'],
      [{ publicUrl: 'https://ok.example', bogus: 1 }, 'body'],
    ];
    for (const [patch, path] of cases) {
      const res = await g.api('PUT', '/v1/settings', patch);
      expect(res.status, `${JSON.stringify(patch)}: ${show(res)}`).toBe(400);
      expect(res.body, JSON.stringify(patch)).toMatchObject({ error: { code: 'VALIDATION_ERROR', issues: expect.arrayContaining([expect.objectContaining({ path })]) } });
    }
    const rejectedSecret = 'not-a-whsec-0123456789abcdefghijklmnopqrstuvwxyz';
    const echo = await g.api('PUT', '/v1/settings', { webhookSecret: rejectedSecret, assistantApiKey: CONSOLE_ASSISTANT_KEY, publicUrl: 'bad' });
    expect(echo.status).toBe(400);
    expect(echo.text).not.toContain(rejectedSecret);
    expect(echo.text).not.toContain(CONSOLE_ASSISTANT_KEY);
    expect(await read(g)).toEqual(before);
  });

  it('accepts http(s) and ws(s) URLs where they belong', async () => {
    const g = await start();
    const settings = await put(g, {
      publicUrl: 'http://192.168.1.20:8080',
      webhookUrl: 'https://hooks.example/path?x=1',
      docsUrl: 'https://docs.example/voice',
      incomingStreamUrl: 'wss://agent.example/in',
    });
    expect(settings).toMatchObject({
      publicUrl: 'http://192.168.1.20:8080',
      webhookUrl: 'https://hooks.example/path?x=1',
      docsUrl: 'https://docs.example/voice',
      incomingStreamUrl: 'wss://agent.example/in',
    });
    expect((await put(g, { incomingStreamUrl: 'ws://localhost:9000' })).incomingStreamUrl).toBe('ws://localhost:9000');
  });

  it('keeps the settings across a restart on the same data directory', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = await start({ dataDir, env: ENV });
    const saved = await put(first, {
      publicUrl: 'https://persisted.example',
      incomingStreamFormat: 'raw',
      assistantModel: 'persisted-model',
      assistantApiKey: CONSOLE_ASSISTANT_KEY,
      docsUrl: '',
    });
    const rotated = await first.api<{ secret: string }>('POST', '/v1/settings/webhook-secret');
    expect(rotated.status, show(rotated)).toBe(200);
    const before = await read(first);
    expect(before).toEqual({ ...saved, webhookSecret: { configured: true, hint: rotated.body.secret.slice(-4), source: 'console' } });
    await first.stop();
    gateways.splice(gateways.indexOf(first), 1);

    const second = await start({ dataDir, env: ENV });
    expect(await read(second)).toEqual(before);
  });

  it('keeps the generated webhook secret across a restart', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = await start({ dataDir });
    const generated = (await read(first)).webhookSecret;
    expect(generated).toMatchObject({ configured: true, source: 'generated' });
    await first.stop();
    gateways.splice(gateways.indexOf(first), 1);
    const second = await start({ dataDir });
    expect((await read(second)).webhookSecret).toEqual(generated);
  });

  it('makes a new webhook secret on POST /v1/settings/webhook-secret, shown once', async () => {
    const g = await start({ env: ENV });
    const a = await g.api<{ secret: string }>('POST', '/v1/settings/webhook-secret');
    expect(a.status, show(a)).toBe(200);
    expect(a.body).toEqual({ secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/) });
    expect(Buffer.from(a.body.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);

    const view = await g.api<{ settings: Settings }>('GET', '/v1/settings');
    expect(view.body.settings.webhookSecret).toEqual({ configured: true, hint: a.body.secret.slice(-4), source: 'console' });
    expect(view.text).not.toContain(a.body.secret);

    const b = await g.api<{ secret: string }>('POST', '/v1/settings/webhook-secret');
    expect(b.body.secret).not.toBe(a.body.secret);
    expect((await read(g)).webhookSecret.hint).toBe(b.body.secret.slice(-4));

    // A rotated secret is a console value: clearing it falls back to the environment's.
    expect((await put(g, { webhookSecret: '' })).webhookSecret).toEqual({ configured: true, hint: ENV.WEBHOOK_SECRET.slice(-4), source: 'env' });
  });

  it('does not store the assistant key or the webhook secret in clear anywhere in DATA_DIR', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const g = await start({ dataDir });
    await put(g, { assistantApiKey: CONSOLE_ASSISTANT_KEY, webhookSecret: CONSOLE_WEBHOOK_SECRET });
    const rotated = (await g.api<{ secret: string }>('POST', '/v1/settings/webhook-secret')).body.secret;
    await put(g, { assistantModel: 'another-write-after-the-secrets' });

    const secrets = [CONSOLE_ASSISTANT_KEY, CONSOLE_WEBHOOK_SECRET, rotated, rotated.slice('whsec_'.length)];
    // While running (the WAL holds the recent writes) and after a clean stop (checkpointed).
    for (const secret of secrets) expect(await storedContaining(dataDir, secret), secret).toEqual([]);
    await g.stop();
    gateways.splice(gateways.indexOf(g), 1);
    for (const secret of secrets) expect(await storedContaining(dataDir, secret), secret).toEqual([]);
    // The search does find what is stored in clear.
    expect(await storedContaining(dataDir, 'another-write-after-the-secrets')).not.toEqual([]);

    // ...and yet they are really kept: a restart still knows them.
    const again = await start({ dataDir });
    expect(await read(again)).toMatchObject({
      assistantApiKey: { configured: true, hint: CONSOLE_ASSISTANT_KEY.slice(-4), source: 'console' },
      webhookSecret: { configured: true, hint: rotated.slice(-4), source: 'console' },
    });
  });
});

describe.skipIf(TEST_DATABASE_URL)('the data directory', () => {
  it('is readable by the gateway\'s own user only: the directory 0700, the database, its WAL and the key file 0600', async () => {
    const { statSync, readdirSync, rmSync: remove } = await import('node:fs');
    const root = tempDir();
    const dataDir = `${root}/data`;
    const g = await startTestGateway({ dataDir });
    try {
      expect((await g.api('PUT', '/v1/settings', { docsUrl: 'https://docs.example.com' })).status).toBe(200);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      const files = readdirSync(dataDir);
      expect(files).toEqual(expect.arrayContaining(['gateway.db', 'gateway.db-wal', 'secret.key']));
      for (const file of files) expect(statSync(`${dataDir}/${file}`).mode & 0o777, file).toBe(0o600);
    } finally {
      await g.stop();
      remove(root, { recursive: true, force: true });
    }
  });
});
