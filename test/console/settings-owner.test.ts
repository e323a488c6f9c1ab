import { describe, expect, it } from 'vitest';
import { testScope } from '../helpers/phones.js';
import { consoleClient, OWNER, setupOwner, show, signIn } from './support.js';

const t = testScope();
const MEMBER = { email: 'member@example.com', password: 'member password' };

describe('settings redirect trust: only the owner (or an API key) changes them', () => {
  it('refuses a member every change of the settings, and lets the owner and API keys make them', async () => {
    const g = await t.gateway();
    const owner = consoleClient(g, await setupOwner(g));
    expect((await owner('POST', '/v1/users', MEMBER)).status).toBe(201);
    const member = consoleClient(g, await signIn(g, MEMBER));

    for (const body of [{ publicUrl: 'https://evil.example' }, { webhookUrl: 'https://evil.example/hook' }, { incomingStreamUrl: 'wss://evil.example/agent' }, { docsUrl: 'https://evil.example' }, { assistantModel: 'x' }]) {
      const res = await member('PUT', '/v1/settings', body);
      expect(res.status, `${JSON.stringify(body)}: ${show(res)}`).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringMatching(/owner/) });
    }
    const rotate = await member('POST', '/v1/settings/webhook-secret');
    expect(rotate.status, show(rotate)).toBe(403);
    const read = await member('GET', '/v1/settings');
    expect(read.status).toBe(200);
    expect(read.body.settings).toMatchObject({ publicUrl: null, webhookUrl: null, incomingStreamUrl: null, docsUrl: null });

    expect((await owner('PUT', '/v1/settings', { publicUrl: 'https://gw.example.com' })).status).toBe(200);
    expect((await g.api('PUT', '/v1/settings', { docsUrl: 'https://docs.example.com' })).status).toBe(200);
    expect((await owner('POST', '/v1/settings/webhook-secret')).status).toBe(200);
  });

  it('takes the Origin of a cookie request from the Host or PUBLIC_URL, never from the saved publicUrl', async () => {
    const g = await t.gateway();
    const owner = consoleClient(g, await setupOwner(g));
    expect((await owner('PUT', '/v1/settings', { publicUrl: 'https://sibling.example.com' })).status).toBe(200);
    const foreign = await owner('POST', '/v1/api-keys', { name: 'csrf' }, { origin: 'https://sibling.example.com' });
    expect(foreign.status, show(foreign)).toBe(401);
    expect((await owner('POST', '/v1/api-keys', { name: 'own origin' })).status).toBe(201);
    const login = await consoleClient(g)('POST', '/v1/auth/login', OWNER, { origin: 'https://sibling.example.com' });
    expect(login.status, show(login)).toBe(403);

    // Behind a proxy that rewrites Host, the operator names the public origin in the environment.
    const proxied = await t.gateway({ env: { PUBLIC_URL: 'https://gateway.example.com/' } });
    const c = consoleClient(proxied, await setupOwner(proxied));
    expect((await c('POST', '/v1/api-keys', { name: 'via proxy' }, { origin: 'https://gateway.example.com' })).status).toBe(201);
  });
});
