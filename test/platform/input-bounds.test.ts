import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SettingsRepo } from '../../src/store/index.js';
import { TEST_API_KEY } from '../helpers/gateway.js';
import { openSocket, pairCredentials, pairingCode, phoneEvent, show, testScope } from '../helpers/phones.js';

const t = testScope();

const issuesOf = (res: { body: { error?: { issues?: Array<{ path: string }> } } }): string[] => (res.body.error?.issues ?? []).map((i) => i.path);

describe('input that passed validation never makes a 500', () => {
  it('bounds a public address by its URL-encoded length, so its QR codes always fit', async () => {
    const g = await t.gateway();
    const long = `http://gw.example.com/${'中'.repeat(700)}`;
    const slashes = `http://gw.example.com/${'/'.repeat(1500)}`;

    const qr = await g.api('GET', `/app/install-qr.svg?url=${encodeURIComponent(long)}`, undefined, { key: null });
    expect(qr.status, show(qr)).toBe(400);
    expect(issuesOf(qr)).toEqual(['query.url']);
    for (const publicUrl of [long, slashes]) {
      const pairing = await g.api('POST', '/v1/pairing', { publicUrl });
      expect(pairing.status, show(pairing)).toBe(400);
      expect(issuesOf(pairing)).toEqual(['body.publicUrl']);
      const saved = await g.api('PUT', '/v1/settings', { publicUrl });
      expect(saved.status, show(saved)).toBe(400);
      expect(issuesOf(saved)).toEqual(['body.publicUrl']);
    }
    // The longest address that passes still makes both QR codes.
    const longest = `http://gw.example.com/${'a'.repeat(2000 - 'http%3A%2F%2Fgw.example.com%2F'.length)}`;
    expect((await g.api('POST', '/v1/pairing', { publicUrl: longest })).status).toBe(200);
    expect((await g.api('GET', `/app/install-qr.svg?url=${encodeURIComponent(longest)}`, undefined, { key: null })).status).toBe(200);
  });

  it('answers 400 on the field for an address saved before the bound, instead of 500 on every pairing', async () => {
    const dataDir = t.tempDir();
    const before = await t.gateway({ dataDir });
    await new SettingsRepo(before.store.db).write({ publicUrl: `http://gw.example.com/${'中'.repeat(1500)}` });
    await before.stop();
    const g = await t.gateway({ dataDir });
    const pairing = await g.api('POST', '/v1/pairing', {});
    expect(pairing.status, show(pairing)).toBe(400);
    expect(pairing.body.error.issues).toEqual([expect.objectContaining({ path: 'body.publicUrl', message: expect.stringContaining('QR code') })]);
  });

  it('refuses NUL and other control characters in every path, query and body string, and stores nothing', async () => {
    const g = await t.gateway();
    const { deviceId } = await pairCredentials(g);
    const cases: Array<[string, string, unknown, string]> = [
      ['GET', '/v1/calls?deviceId=%00', undefined, 'query.deviceId'],
      ['GET', '/v1/calls/%00', undefined, 'path.callId'],
      ['GET', '/v1/calls/a%00b/events', undefined, 'path.callId'],
      ['GET', '/v1/devices/a%00b', undefined, 'path.deviceId'],
      ['GET', '/v1/webhook-deliveries?callId=%00', undefined, 'query.callId'],
      ['POST', '/v1/api-keys', { name: 'a\u0000b' }, 'body.name'],
      ['POST', '/v1/api-keys', { name: 'line\nbreak' }, 'body.name'],
      ['DELETE', '/v1/api-keys/a%00b', undefined, 'path.id'],
      ['PATCH', `/v1/devices/${deviceId}`, { name: 'Front\u0000desk' }, 'body.name'],
      ['PUT', '/v1/agent', { ownerName: 'Dana\u0000' }, 'body.ownerName'],
      ['PUT', '/v1/agent', { about: 'Open 9\u0000-5' }, 'body.about'],
      ['PUT', '/v1/settings', { assistantModel: 'gpt\u0000' }, 'body.assistantModel'],
      ['PUT', '/v1/settings', { webhookUrl: 'http://example.com/a\u0000b' }, 'body.webhookUrl'],
      ['POST', '/v1/calls', { deviceId: `${deviceId}\u0000`, to: '+15550100' }, 'body.deviceId'],
      ['POST', '/v1/calls', { deviceId, to: '+15550100', stream: { url: 'ws://127.0.0.1:9/a', parameters: { token: 'a\u0000' } } }, 'body.stream.parameters.token'],
    ];
    for (const [method, path, body, where] of cases) {
      const res = await g.api(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${show(res)}`).toBe(400);
      expect(issuesOf(res), `${method} ${path}`).toEqual([where]);
    }
    // Text a person writes over several lines keeps them.
    const about = await g.api('PUT', '/v1/agent', { about: 'Open 9-5.\nClosed on Sundays.\tThanks.' });
    expect(about.status, show(about)).toBe(200);
    expect((await g.api('GET', `/v1/devices/${deviceId}`)).body.device.name).toBe('Raw phone');

    const media = await openSocket(`${g.url.replace(/^http/, 'ws')}/v1/calls/a%00b/media`, { 'x-api-key': TEST_API_KEY });
    expect(media.ok ? 101 : media.status).toBe(400);
  });

  it('keeps a pairing code usable when the phone\'s request is refused', async () => {
    const g = await t.gateway();
    const code = await pairingCode(g);
    const refused = await g.api('POST', '/v1/phone/pair', { code, name: 'a\u0000b' }, { key: null });
    expect(refused.status, show(refused)).toBe(400);
    expect(issuesOf(refused)).toEqual(['body.name']);
    const paired = await g.api('POST', '/v1/phone/pair', { code, name: 'Front desk' }, { key: null });
    expect(paired.status, show(paired)).toBe(200);
  });

  it('refuses control characters in the phone protocol\'s strings', async () => {
    const g = await t.gateway();
    const phone = await t.raw(g, (await pairCredentials(g)).deviceToken);
    for (const extra of [{ nativeCallId: 'native\u0000' }, { remoteNumber: '+49\u0000' }]) {
      const refusal = phone.nextNew((m) => m.type === 'error');
      phone.send({ ...phoneEvent('call.ringing', `native-${randomUUID()}`, { direction: 'incoming', remoteNumber: '+4930100' }), ...extra });
      expect(await refusal, JSON.stringify(extra)).toMatchObject({ code: 'BAD_MESSAGE' });
    }
    const refusal = phone.nextNew((m) => m.type === 'error');
    phone.send({ type: 'health', health: { carrier: 'T\u0000' } });
    expect(await refusal).toMatchObject({ code: 'BAD_MESSAGE', message: expect.stringContaining('carrier') });
  });

  it('caps row ids and cursors to what the database column holds', async () => {
    const g = await t.gateway();
    const retry = await g.api('POST', '/v1/webhook-deliveries/3000000000/retry');
    expect(retry.status, show(retry)).toBe(400);
    expect(issuesOf(retry)).toEqual(['path.id']);
    const page = await g.api('GET', '/v1/webhook-deliveries?before=3000000000');
    expect(page.status, show(page)).toBe(400);
    expect(issuesOf(page)).toEqual(['query.before']);
    expect((await g.api('POST', '/v1/webhook-deliveries/2147483647/retry')).status).toBe(404);
    expect((await g.api('GET', '/v1/webhook-deliveries?before=2147483647')).status).toBe(200);
  });
});
