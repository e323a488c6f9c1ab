import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_API_KEY, type TestGateway } from '../helpers/gateway.js';
import { chunkedRequest, show } from './support.js';

const ENV_ASSISTANT_KEY = 'sk-env-assistant-LOGS-0123456789';
const ENV_WEBHOOK_SECRET = 'whsec_ZW52LWxvZ3Mtd2ViaG9vay1zZWNyZXQtMzItYnl0ZXMh';
const CONSOLE_ASSISTANT_KEY = 'sk-console-assistant-LOGS-abcdefghij';
const CONSOLE_WEBHOOK_SECRET = 'whsec_Y29uc29sZS1sb2dzLXdlYmhvb2stc2VjcmV0LTMyYnk=';
const WRONG_KEY = 'gw_wrongButSecretLookingKEY0123456789';

describe('logs', () => {
  let g: TestGateway;
  afterEach(async () => {
    await g.stop();
  });

  const leaks = (secrets: string[]): string[] => g.logs.filter((line) => secrets.some((secret) => line.includes(secret)));

  it('never contain an API key, the assistant key or the webhook secret', async () => {
    g = await startTestGateway({
      captureLogs: true,
      env: { ASSISTANT_API_KEY: ENV_ASSISTANT_KEY, WEBHOOK_SECRET: ENV_WEBHOOK_SECRET },
    });
    const created = await g.api<{ apiKey: { id: string; key: string } }>('POST', '/v1/api-keys', { name: 'logged' });
    expect(created.status, show(created)).toBe(201);
    const apiKey = created.body.apiKey.key;

    const requests: Array<Promise<unknown>> = [
      g.api('GET', '/v1/settings', undefined, { key: apiKey }),
      g.api('GET', '/v1/api-keys', undefined, { key: null, headers: { 'x-api-key': apiKey } }),
      g.api('GET', '/v1/settings', undefined, { key: WRONG_KEY }),
      g.api('GET', '/v1/settings', undefined, { key: null, headers: { 'x-api-key': WRONG_KEY } }),
      g.api('GET', '/v1/no-such-route', undefined, { key: apiKey }),
      g.api('PUT', '/v1/settings', { assistantApiKey: CONSOLE_ASSISTANT_KEY, webhookSecret: CONSOLE_WEBHOOK_SECRET }, { key: apiKey }),
      // Rejected bodies carrying secrets: validation, malformed JSON, too large.
      g.api('PUT', '/v1/settings', { assistantApiKey: CONSOLE_ASSISTANT_KEY, publicUrl: 'nope' }),
      g.api('PUT', '/v1/settings', undefined, { raw: `{"assistantApiKey":"${CONSOLE_ASSISTANT_KEY}"` }),
      g.api('PUT', '/v1/settings', undefined, { raw: `{"assistantApiKey":"${CONSOLE_ASSISTANT_KEY}"}`, headers: { 'content-type': 'text/plain' } }),
      chunkedRequest(`${g.url}/v1/settings`, 'PUT', [`{"webhookSecret":"${CONSOLE_WEBHOOK_SECRET}",`, Buffer.alloc(1024 * 1024 + 10, 0x20), '}'], {
        authorization: `Bearer ${apiKey}`,
      }),
    ];
    for (const request of requests) await request;
    const rotated = await g.api<{ secret: string }>('POST', '/v1/settings/webhook-secret', undefined, { key: apiKey });
    expect(rotated.status, show(rotated)).toBe(200);
    const revoked = await g.api('DELETE', `/v1/api-keys/${created.body.apiKey.id}`);
    expect(revoked.status, show(revoked)).toBe(204);
    expect((await g.api('GET', '/v1/settings', undefined, { key: apiKey })).status).toBe(401);
    await g.stop();

    expect(g.logs.length, 'the logs were captured').toBeGreaterThan(0);
    expect(g.logs.some((line) => line.includes('gateway listening'))).toBe(true);
    for (const line of g.logs) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    const secrets = [TEST_API_KEY, apiKey, apiKey.slice(11), WRONG_KEY, ENV_ASSISTANT_KEY, ENV_WEBHOOK_SECRET, CONSOLE_ASSISTANT_KEY, CONSOLE_WEBHOOK_SECRET, rotated.body.secret];
    expect(leaks(secrets)).toEqual([]);
  });

  it('redact secrets a careless log call passes in', async () => {
    g = await startTestGateway({ captureLogs: true });
    const secrets = ['gw_carelessKey0123456789', 'sk-careless-assistant-key', 'whsec_Y2FyZWxlc3Mtd2ViaG9vay1zZWNyZXQtMzI=', 'device-token-careless'];
    const [key, assistant, webhook, token] = secrets as [string, string, string, string];
    g.log.info({ req: { headers: { authorization: `Bearer ${key}`, 'x-api-key': key } } }, 'a request');
    g.log.info({ headers: { authorization: `Bearer ${key}`, 'x-api-key': key } }, 'some headers');
    g.log.info({ patch: { assistantApiKey: assistant, webhookSecret: webhook } }, 'a settings patch');
    g.log.info({ assistantApiKey: assistant, webhookSecret: webhook, apiKey: { key }, deviceToken: token }, 'flat secrets');
    g.log.warn({ settings: { secret: webhook, token, password: 'hunter22' } }, 'nested secrets');
    const careless = g.logs.filter((line) => /a request|some headers|a settings patch|flat secrets|nested secrets/.test(line));
    expect(careless).toHaveLength(5);
    expect(careless.filter((line) => [...secrets, 'hunter22'].some((s) => line.includes(s)))).toEqual([]);
    expect(careless.join('\n')).toContain('[redacted]');
  });
});
