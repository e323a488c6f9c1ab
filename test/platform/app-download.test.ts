import { createHash } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import QRCode from 'qrcode';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { show } from './support.js';

const gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.stop()));
});

/** A gateway serving `apk` (none when null) from its data directory, where the test helper points it. */
async function gatewayServing(apk: Buffer | null, env: Record<string, string> = {}) {
  const g = await startTestGateway({ env });
  gateways.push(g);
  const appApkPath = path.join(g.dataDir, 'voice-gateway.apk');
  if (apk) writeFileSync(appApkPath, apk);
  return { g, appApkPath };
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

describe('GET /app/voice-gateway.apk', () => {
  it('serves the built APK without a credential, named, typed and with its SHA-256 as ETag', async () => {
    const apk = Buffer.from(`PK\u0003\u0004${'apk bytes '.repeat(5000)}`);
    const { g } = await gatewayServing(apk);
    const res = await fetch(`${g.url}/app/voice-gateway.apk`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.android.package-archive');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="voice-gateway.apk"');
    expect(res.headers.get('content-length')).toBe(String(apk.length));
    expect(res.headers.get('etag')).toBe(`"${sha256(apk)}"`);
    expect(Date.parse(res.headers.get('last-modified') ?? '')).not.toBeNaN();
    expect(Buffer.from(await res.arrayBuffer()).equals(apk)).toBe(true);

    const head = await fetch(`${g.url}/app/voice-gateway.apk`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(apk.length));
    expect(await head.text()).toBe('');
  });

  it('answers 304 to a phone that already has it, and serves a rebuilt APK at once', async () => {
    const first = Buffer.from('first build');
    const { g, appApkPath } = await gatewayServing(first);
    const etag = (await fetch(`${g.url}/app/voice-gateway.apk`)).headers.get('etag')!;
    const again = await fetch(`${g.url}/app/voice-gateway.apk`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);

    // The build replaces the file in one rename, as scripts/android/build.ts does.
    const second = Buffer.from('second build, a little longer');
    writeFileSync(`${appApkPath}.new`, second);
    renameSync(`${appApkPath}.new`, appApkPath);
    const rebuilt = await fetch(`${g.url}/app/voice-gateway.apk`, { headers: { 'if-none-match': etag } });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.headers.get('etag')).toBe(`"${sha256(second)}"`);
    expect(Buffer.from(await rebuilt.arrayBuffer()).equals(second)).toBe(true);
  });

  it('answers 404 in the error shape, saying how to build it, when it is not built', async () => {
    const { g } = await gatewayServing(null);
    for (const method of ['GET', 'HEAD']) {
      const res = await g.api(method, '/app/voice-gateway.apk', undefined, { key: null });
      expect(res.status, show(res)).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      if (method === 'GET') {
        expect(res.body.error.code).toBe('NOT_FOUND');
        expect(res.body.error.message).toContain('npm run build:android');
      }
    }
  });
});

describe('GET /app/install-qr.svg', () => {
  const expected = (url: string) => QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });

  it('is a QR code of the download address at the gateway\'s own address, and never shows the saved public address', async () => {
    const { g } = await gatewayServing(null, { PUBLIC_URL: 'https://gw.example.com' });
    const given = await g.api('GET', `/app/install-qr.svg?url=${encodeURIComponent('https://gw.example.com/')}`, undefined, { key: null });
    expect(given.status, show(given)).toBe(200);
    expect(given.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(given.text).toBe(await expected('https://gw.example.com/app/voice-gateway.apk'));
    // Open to everybody: without `url` it would tell anyone the gateway's public address.
    const saved = await g.api('GET', '/app/install-qr.svg', undefined, { key: null });
    expect(saved.status, show(saved)).toBe(400);
    expect(saved.body.error.issues).toEqual([expect.objectContaining({ path: 'query.url', code: expect.any(String) })]);
  });

  it('draws no QR code for a stranger\'s host: only the public address, the request\'s own origin or a current pairing\'s address', async () => {
    const { g } = await gatewayServing(null, { PUBLIC_URL: 'https://gw.example.com/voice' });
    const qr = (url: string) => g.api('GET', `/app/install-qr.svg?url=${encodeURIComponent(url)}`, undefined, { key: null });
    for (const stranger of ['https://evil.example.net', 'https://gw.example.com.evil.example.net/voice', 'https://gw.example.com/other', 'http://192.168.1.20:8080']) {
      const refused = await qr(stranger);
      expect(refused.status, `${stranger}: ${show(refused)}`).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', issues: [{ path: 'query.url', message: expect.stringContaining('own address') }] });
      expect(refused.text).not.toContain('<svg');
    }
    for (const own of ['https://gw.example.com/voice', 'https://GW.example.com:443/voice/', g.url, `${g.url}/`]) {
      const drawn = await qr(own);
      expect(drawn.status, `${own}: ${show(drawn)}`).toBe(200);
      expect(drawn.text).toBe(await expected(`${own.replace(/\/+$/, '')}/app/voice-gateway.apk`));
    }
    // The console asks for an address when none is configured and pairs with it: that one is the gateway's too.
    expect((await qr('http://192.168.1.20:8080')).status).toBe(400);
    expect((await g.api('POST', '/v1/pairing', { publicUrl: 'http://192.168.1.20:8080/' })).status).toBe(200);
    expect((await qr('http://192.168.1.20:8080')).status).toBe(200);
    expect((await qr('http://192.168.1.20:8080/')).status).toBe(200);
  });

  it('answers 400 for an address that is not http(s), and when no address is known', async () => {
    const { g } = await gatewayServing(null);
    const bad = await g.api('GET', '/app/install-qr.svg?url=ftp%3A%2F%2Fx', undefined, { key: null });
    expect(bad.status, show(bad)).toBe(400);
    expect(bad.body.error.issues[0].path).toBe('query.url');
    const none = await g.api('GET', '/app/install-qr.svg', undefined, { key: null });
    expect(none.status, show(none)).toBe(400);
    expect(none.body.error).toMatchObject({ code: 'VALIDATION_ERROR', issues: [{ path: 'query.url' }] });
  });
});

describe('the OpenAPI document', () => {
  it('lists both routes as public, the APK with its content type and its 404', async () => {
    const { g } = await gatewayServing(null);
    const doc = (await g.api('GET', '/openapi.json', undefined, { key: null })).body;
    const download = doc.paths['/app/voice-gateway.apk'].get;
    expect(download.security).toEqual([]);
    expect(Object.keys(download.responses['200'].content)).toEqual(['application/vnd.android.package-archive']);
    expect(download.responses['404'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    expect(doc.paths['/app/install-qr.svg'].get.security).toEqual([]);
  });
});
