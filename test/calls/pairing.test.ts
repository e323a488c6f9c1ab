import { describe, expect, it } from 'vitest';
import { GatewayRequestError, PhoneSimulator } from '../../src/simulator/index.js';
import type { TestGateway } from '../helpers/gateway.js';
import { show, storedContaining, testScope, type ErrorBody, type Pairing } from '../helpers/phones.js';

const t = testScope();

const TEN_MINUTES = 10 * 60 * 1000;

async function newCode(g: TestGateway, ...body: [unknown?]) {
  const res = await g.api<Pairing>('POST', '/v1/pairing', body.length ? body[0] : { publicUrl: 'https://gw.example.com' });
  expect(res.status, show(res)).toBe(200);
  return res.body;
}

const redeem = (g: TestGateway, body: unknown) => g.api<{ deviceId: string; deviceToken: string } & ErrorBody>('POST', '/v1/phone/pair', body, { key: null });

describe('POST /v1/pairing', () => {
  it('returns a one-time code of at least 40 bits, good for 10 minutes, with its pairUri and QR code', async () => {
    const g = await t.gateway();
    const before = Date.now();
    const pairing = await newCode(g, { publicUrl: 'https://gw.example.com:8443/base' });
    const after = Date.now();

    expect(Object.keys(pairing).sort()).toEqual(['code', 'expiresAt', 'pairUri', 'publicUrl', 'qrSvg']);
    // 32 symbols (5 bits each): at least 8 of them carry 40 bits.
    expect(pairing.code).toMatch(/^[0-9A-Z]{8,}$/);
    expect(pairing.code.length * 5).toBeGreaterThanOrEqual(40);
    const expires = Date.parse(pairing.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + TEN_MINUTES - 1000);
    expect(expires).toBeLessThanOrEqual(after + TEN_MINUTES + 1000);
    expect(pairing.publicUrl).toBe('https://gw.example.com:8443/base');
    expect(pairing.pairUri).toBe(`voicegateway://pair?url=${encodeURIComponent('https://gw.example.com:8443/base')}&code=${pairing.code}`);
    const uri = new URL(pairing.pairUri);
    expect(uri.protocol).toBe('voicegateway:');
    expect(uri.searchParams.get('url')).toBe('https://gw.example.com:8443/base');
    expect(uri.searchParams.get('code')).toBe(pairing.code);
    expect(pairing.qrSvg.trimStart()).toMatch(/^(<\?xml[^>]*>\s*)?<svg/);
    expect(pairing.qrSvg).toContain('</svg>');

    const codes = new Set<string>([pairing.code]);
    for (let i = 0; i < 5; i++) codes.add((await newCode(g)).code);
    expect(codes.size).toBe(6);
  });

  it('takes publicUrl from the body, else the settings, else PUBLIC_URL', async () => {
    const g = await t.gateway({ env: { PUBLIC_URL: 'https://env.example' } });
    expect((await newCode(g, undefined)).publicUrl).toBe('https://env.example');
    expect((await newCode(g, {})).publicUrl).toBe('https://env.example');

    const put = await g.api('PUT', '/v1/settings', { publicUrl: 'https://settings.example' });
    expect(put.status, show(put)).toBe(200);
    const fromSettings = await newCode(g, {});
    expect(fromSettings.publicUrl).toBe('https://settings.example');
    expect(fromSettings.pairUri).toContain(`url=${encodeURIComponent('https://settings.example')}&`);

    expect((await newCode(g, { publicUrl: 'https://body.example' })).publicUrl).toBe('https://body.example');
  });

  it('answers 400 when no public address is known, and for a publicUrl that is not an http(s) URL', async () => {
    const g = await t.gateway();
    const none = await g.api<ErrorBody>('POST', '/v1/pairing', {});
    expect(none.status, show(none)).toBe(400);
    expect(none.body.error.code).toBe('VALIDATION_ERROR');
    // Like every issue, it names its code.
    expect(none.body.error.issues).toEqual([{ path: 'body.publicUrl', message: 'required when no public address is configured', code: 'required' }]);
    const empty = await g.api<ErrorBody>('POST', '/v1/pairing');
    expect(empty.status, show(empty)).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_ERROR');

    const bad = await g.api<ErrorBody>('POST', '/v1/pairing', { publicUrl: 'ftp://gw.example.com' });
    expect(bad.status, show(bad)).toBe(400);
    expect(bad.body.error.issues?.map((i) => i.path)).toContain('body.publicUrl');
  });

  it('needs an API key', async () => {
    const g = await t.gateway();
    const res = await g.api<ErrorBody>('POST', '/v1/pairing', { publicUrl: 'https://gw.example.com' }, { key: null });
    expect(res.status, show(res)).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('POST /v1/phone/pair', () => {
  it('redeems a code once for a phone-<hex> id and a device token; no API key is needed', async () => {
    const g = await t.gateway();
    const { code } = await newCode(g);
    const res = await redeem(g, { code, name: 'Kitchen phone', model: 'Pixel 8', android: '15', appVersion: '1.0.0' });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.deviceId).toMatch(/^phone-[0-9a-f]+$/);
    expect(typeof res.body.deviceToken).toBe('string');
    expect(res.body.deviceToken.length).toBeGreaterThanOrEqual(32);

    const device = await g.api<{ device: { id: string; name: string; connected: boolean; health: Record<string, unknown> | null } }>('GET', `/v1/devices/${res.body.deviceId}`);
    expect(device.status, show(device)).toBe(200);
    expect(device.body.device).toMatchObject({ id: res.body.deviceId, name: 'Kitchen phone', connected: false });
    expect(device.body.device.health).toMatchObject({ model: 'Pixel 8', android: '15', appVersion: '1.0.0' });
    expect(device.text).not.toContain(res.body.deviceToken);

    const again = await redeem(g, { code, name: 'Second phone' });
    expect(again.status, show(again)).toBe(401);
    expect(again.body.error.code).toBe('UNAUTHORIZED');
    const list = await g.api<{ devices: unknown[] }>('GET', '/v1/devices');
    expect(list.body.devices).toHaveLength(1);
  });

  it('refuses an unknown code with 401 and a malformed body with 400', async () => {
    const g = await t.gateway();
    const unknown = await redeem(g, { code: 'ZZZZZZZZZZ', name: 'Phone' });
    expect(unknown.status, show(unknown)).toBe(401);
    expect(unknown.body.error.code).toBe('UNAUTHORIZED');

    for (const body of [{}, { code: 'ABC' }, { name: 'Phone' }, { code: 123, name: 'Phone' }, { code: 'ABC', name: '' }]) {
      const res = await redeem(g, body);
      expect(res.status, `${JSON.stringify(body)}: ${show(res)}`).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.issues?.length).toBeGreaterThan(0);
    }
    const notJson = await g.api<ErrorBody>('POST', '/v1/phone/pair', undefined, { key: null, raw: '{"code":' });
    expect(notJson.status, show(notJson)).toBe(400);
    expect(notJson.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses an expired code', async () => {
    const g = await t.gateway();
    const { code } = await newCode(g);
    // Ten minutes cannot pass in a test: age the stored code instead.
    await g.store.db.updateTable('pairing_codes').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    const res = await redeem(g, { code, name: 'Late phone' });
    expect(res.status, show(res)).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('rate limits repeated bad codes with 429 and Retry-After, even for a good code', async () => {
    const g = await t.gateway();
    const { code } = await newCode(g);
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof redeem>> | undefined;
    for (let i = 0; i < 30 && !limited; i++) {
      const res = await redeem(g, { code: `WRONG${i}`, name: 'Guesser' });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(limited, `statuses: ${statuses.join(',')}`).toBeDefined();
    expect(statuses.slice(0, -1).every((s) => s === 401), statuses.join(',')).toBe(true);
    expect(statuses.length).toBeGreaterThanOrEqual(4);
    expect(limited!.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited!.headers.get('retry-after'));
    expect(retryAfter, String(limited!.headers.get('retry-after'))).toBeGreaterThan(0);

    const good = await redeem(g, { code, name: 'Honest phone' });
    expect(good.status, show(good)).toBe(429);
    expect(good.headers.get('retry-after')).toBeTruthy();
  });

  it('keeps neither the device token nor the code in clear in DATA_DIR', async () => {
    const g = await t.gateway();
    const { code } = await newCode(g);
    const res = await redeem(g, { code, name: 'Secret phone' });
    expect(res.status, show(res)).toBe(200);
    const { deviceToken } = res.body;
    // The token works, so it was stored (as something).
    const sim = t.track(new PhoneSimulator({ gatewayUrl: g.url, credentials: res.body, audio: { kind: 'none' } }));
    await sim.connect();
    expect(await storedContaining(g.dataDir, deviceToken)).toEqual([]);
    expect(await storedContaining(g.dataDir, deviceToken.replace(/^dt_/, ''))).toEqual([]);
    expect(await storedContaining(g.dataDir, code)).toEqual([]);
  });

  it('pairs the simulator end to end and refuses it a second time', async () => {
    const g: TestGateway = await t.gateway();
    const { code } = await newCode(g, { publicUrl: g.url });
    const sim = t.track(new PhoneSimulator({ gatewayUrl: g.url, name: 'Sim', audio: { kind: 'none' } }));
    const creds = await sim.pair(code);
    expect(creds.deviceId).toMatch(/^phone-[0-9a-f]+$/);
    await sim.connect();
    expect(sim.connected).toBe(true);
    const other = t.track(new PhoneSimulator({ gatewayUrl: g.url, name: 'Sim 2', audio: { kind: 'none' } }));
    const err = await other.pair(code).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayRequestError);
    expect((err as GatewayRequestError).status).toBe(401);
    expect((err as GatewayRequestError).code).toBe('UNAUTHORIZED');
  });
});
