import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { ServerProcess, tempDir } from './support.js';

/** The message loadConfig throws for env, or fails the test if it accepts it. */
function rejection(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('configuration from the environment', () => {
  it('has the defaults of the contract', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: './data',
      databaseUrl: undefined,
      gatewayApiKey: undefined,
      publicUrl: undefined,
      incomingStreamFormat: undefined,
      webhookRetryDelaysMs: [5_000, 30_000, 120_000],
      outboundDeny: [],
      outboundAllow: [],
      trustProxy: [],
      logLevel: 'info',
    });
  });

  it('reads every variable of the contract', () => {
    const config = loadConfig({
      PORT: '9090',
      HOST: '127.0.0.1',
      DATA_DIR: '/var/lib/voice',
      DATABASE_URL: 'postgres://u:p@db:5432/voice',
      HTTP_GATEWAY_API_KEY: 'an-environment-key-of-some-length',
      METRICS_TOKEN: 'a-scraper-token.0123456789~+/=',
      PUBLIC_URL: 'https://gw.example',
      WEBHOOK_URL: 'https://hooks.example/in',
      DOCS_URL: 'https://docs.example',
      INCOMING_STREAM_URL: 'wss://agent.example/in',
      INCOMING_STREAM_FORMAT: 'vendor',
      ASSISTANT_API_KEY: 'sk-assistant',
      ASSISTANT_MODEL: 'some-model',
      ASSISTANT_REALTIME_URL: 'ws://127.0.0.1:9999/realtime',
      WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAAAAAAAAAAA=',
      WEBHOOK_RETRY_DELAYS: '50ms,1s,2m',
      SECRET_KEY: 'q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA=',
      SECRET_KEY_PREVIOUS: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
      OUTBOUND_DENY: '10.0.0.0/8, fd00::/8',
      OUTBOUND_ALLOW: '10.1.2.3',
      TRUST_PROXY: '10.0.0.2, fd00::/8',
      ADMIN_EMAIL: 'owner@example.com',
      ADMIN_PASSWORD: 'correct horse battery',
      LOG_LEVEL: 'debug',
    });
    expect(config).toEqual({
      port: 9090,
      host: '127.0.0.1',
      dataDir: '/var/lib/voice',
      databaseUrl: 'postgres://u:p@db:5432/voice',
      gatewayApiKey: 'an-environment-key-of-some-length',
      metricsToken: 'a-scraper-token.0123456789~+/=',
      publicUrl: 'https://gw.example',
      webhookUrl: 'https://hooks.example/in',
      docsUrl: 'https://docs.example',
      incomingStreamUrl: 'wss://agent.example/in',
      incomingStreamFormat: 'vendor',
      assistantApiKey: 'sk-assistant',
      assistantModel: 'some-model',
      assistantRealtimeUrl: 'ws://127.0.0.1:9999/realtime',
      webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAAAAAAAAAAA=',
      webhookRetryDelaysMs: [50, 1000, 120_000],
      secretKey: { key: Buffer.from('q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA=', 'base64'), from: 'SECRET_KEY' },
      secretKeyPrevious: Buffer.from(Array.from({ length: 32 }, (_, i) => i)),
      outboundDeny: [expect.objectContaining({ text: '10.0.0.0/8' }), expect.objectContaining({ text: 'fd00::/8' })],
      outboundAllow: [expect.objectContaining({ text: '10.1.2.3/32' })],
      trustProxy: [expect.objectContaining({ text: '10.0.0.2/32' }), expect.objectContaining({ text: 'fd00::/8' })],
      adminEmail: 'owner@example.com',
      adminPassword: 'correct horse battery',
      logLevel: 'debug',
    });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', PUBLIC_URL: '', LOG_LEVEL: '' })).toMatchObject({ port: 8080, publicUrl: undefined, logLevel: 'info' });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PUBLIC_URL', 'not a url'],
    ['WEBHOOK_URL', 'ftp://hooks.example'],
    ['DOCS_URL', 'docs'],
    ['INCOMING_STREAM_URL', 'https://agent.example'],
    ['INCOMING_STREAM_FORMAT', 'mp3'],
    ['ASSISTANT_REALTIME_URL', 'http://model.example'],
    ['DATABASE_URL', 'mysql://db/voice'],
    ['WEBHOOK_RETRY_DELAYS', '5x,30s,2m'],
    ['WEBHOOK_RETRY_DELAYS', '5s,30s'],
    ['LOG_LEVEL', 'loud'],
    ['ADMIN_EMAIL', 'not-an-email'],
    ['OUTBOUND_DENY', '10.0.0.0/33'],
    ['OUTBOUND_DENY', '169.254.0.0/16,metadata.internal'],
    ['OUTBOUND_ALLOW', '0x7f000001'],
    ['TRUST_PROXY', 'balancer.local'],
  ])('rejects %s=%s with a message naming the variable', (variable, value) => {
    const err = rejection({ [variable]: value });
    expect(err.variable).toBe(variable);
    expect(err.message).toContain(variable);
    expect(err.message).not.toContain('\n');
  });

  it.each([
    ['HTTP_GATEWAY_API_KEY', 'short-key'],
    ['METRICS_TOKEN', 'short-token'],
    ['METRICS_TOKEN', 'a token with spaces 0123456789'],
    ['WEBHOOK_SECRET', 'whsec_tooshort'],
    ['WEBHOOK_SECRET', 'plain-secret-without-the-prefix-0123456789'],
    ['ADMIN_PASSWORD', 'seven77'],
    ['WEBHOOK_URL', 'https://alice:s3cret-pw@hooks.example/in'],
    ['INCOMING_STREAM_URL', 'wss://alice:s3cret-pw@agent.example/in'],
    ['ASSISTANT_REALTIME_URL', 'wss://alice:s3cret-pw@model.example/v1/realtime'],
    ['DATABASE_URL', 'mysql://alice:s3cret-pw@db/voice'],
  ])('rejects a bad %s without printing its value', (variable, value) => {
    const env: Record<string, string> = { [variable]: value };
    if (variable === 'ADMIN_PASSWORD') env.ADMIN_EMAIL = 'owner@example.com';
    const err = rejection(env);
    expect(err.message).toContain(variable);
    expect(err.message).not.toContain(value);
  });

  it('reads NODE_URL, the address the other gateways of a cluster reach this one at', () => {
    const database = { DATABASE_URL: 'postgres://u:p@db:5432/voice' };
    expect(loadConfig({ ...database, NODE_URL: 'http://10.0.0.5:8080/' }).nodeUrl).toBe('http://10.0.0.5:8080');
    expect(loadConfig({ ...database, NODE_URL: 'https://[fd00::5]:8443' }).nodeUrl).toBe('https://[fd00::5]:8443');
    for (const value of ['ftp://10.0.0.5', 'http://10.0.0.5:8080/gateway', 'http://10.0.0.5:8080/?a=1', 'not a url']) {
      const err = rejection({ ...database, NODE_URL: value });
      expect(err.variable, value).toBe('NODE_URL');
    }
    const withPassword = rejection({ ...database, NODE_URL: 'http://alice:s3cret-pw@10.0.0.5:8080' });
    expect(withPassword.variable).toBe('NODE_URL');
    expect(withPassword.message).not.toContain('s3cret-pw');
    expect(rejection({ NODE_URL: 'http://10.0.0.5:8080' }).message).toContain('needs DATABASE_URL');
  });

  it('wants ADMIN_EMAIL and ADMIN_PASSWORD together', () => {
    expect(rejection({ ADMIN_EMAIL: 'owner@example.com' }).message).toContain('ADMIN_PASSWORD');
    expect(rejection({ ADMIN_PASSWORD: 'correct horse battery' }).message).toContain('ADMIN_EMAIL');
  });

  describe.concurrent('the real server', () => {
    it.for([
      ['PORT', 'abc', 'abc'],
      ['HTTP_GATEWAY_API_KEY', 'short-key', null],
    ] as const)('refuses to start with %s=%s: exit code non-zero, one line on stderr naming it', async ([variable, value, shown], { expect, onTestFinished }) => {
      const dataDir = tempDir();
      const server = new ServerProcess({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', [variable]: value });
      onTestFinished(async () => {
        await server.kill();
        rmSync(dataDir, { recursive: true, force: true });
      });
      const { code } = await server.exited;
      expect(code, server.stderr).not.toBe(0);
      expect(code).not.toBeNull();
      const lines = server.stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines, server.stderr).toHaveLength(1);
      expect(lines[0]).toContain(variable);
      if (shown) expect(lines[0]).toContain(shown);
      else expect(lines[0]).not.toContain(value);
      expect(server.lines.map((l) => l.msg)).not.toContain('gateway listening');
    });
  });
});

describe('SECRET_KEY, SECRET_KEY_FILE and SECRET_KEY_PREVIOUS in the configuration', () => {
  it('takes 32 bytes of base64, padded or not, in either alphabet', () => {
    const key = randomBytes(32);
    for (const text of [key.toString('base64'), key.toString('base64url'), ` ${key.toString('base64')}\n`]) {
      expect(loadConfig({ SECRET_KEY: text }).secretKey).toEqual({ key, from: 'SECRET_KEY' });
      expect(loadConfig({ SECRET_KEY: randomBytes(32).toString('base64'), SECRET_KEY_PREVIOUS: text }).secretKeyPrevious).toEqual(key);
    }
    expect(loadConfig({}).secretKey).toBeUndefined();
  });

  it.each([
    ['SECRET_KEY', 'too-short'],
    ['SECRET_KEY', randomBytes(31).toString('base64')],
    ['SECRET_KEY', randomBytes(33).toString('base64')],
    ['SECRET_KEY', randomBytes(32).toString('hex')],
    ['SECRET_KEY_PREVIOUS', 'not a key at all, not at all!!!!!!!!!!!!!!'],
  ])('refuses %s=%s in one line naming it, without printing it', (variable, value) => {
    const err = rejection({ [variable]: value });
    expect(err.variable).toBe(variable);
    expect(err.message).toMatch(/32 random bytes in base64/);
    expect(err.message).not.toContain(value);
    expect(err.message).not.toContain('\n');
  });

  it('reads SECRET_KEY_FILE, and says which file cannot be read or holds no key', ({ onTestFinished }) => {
    const d = tempDir();
    onTestFinished(() => rmSync(d, { recursive: true, force: true }));
    const key = randomBytes(32);
    writeFileSync(path.join(d, 'good.key'), `${key.toString('base64')}\n`);
    writeFileSync(path.join(d, 'bad.key'), 'hello');
    expect(loadConfig({ SECRET_KEY_FILE: path.join(d, 'good.key') }).secretKey).toEqual({ key, from: 'SECRET_KEY_FILE', file: path.join(d, 'good.key') });
    const missing = rejection({ SECRET_KEY_FILE: path.join(d, 'missing.key') });
    expect(missing.message).toMatch(/SECRET_KEY_FILE: cannot read .*missing\.key \(ENOENT\)/);
    expect(rejection({ SECRET_KEY_FILE: path.join(d, 'bad.key') }).message).toMatch(/bad\.key must be 32 random bytes/);
    expect(rejection({ SECRET_KEY: randomBytes(32).toString('base64'), SECRET_KEY_FILE: path.join(d, 'good.key') }).message).toMatch(/not both/);
  });
});
