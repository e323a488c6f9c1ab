import { describe, expect, it } from 'vitest';
import { pairCredentials, pairingCode, show, testScope } from '../helpers/phones.js';

const t = testScope();

/** Names that read as something they are not, or as nothing. */
const SPOOFING: Array<[string, string]> = [
  ['right-to-left override', 'Front desk\u202Eexe.txt'],
  ['left-to-right isolate', 'Front\u2066desk'],
  ['right-to-left mark', 'Front\u200Fdesk'],
  ['line separator', 'Front\u2028desk'],
  ['paragraph separator', 'Front\u2029desk'],
  ['next line (C1)', 'Front\u0085desk'],
  ['C1 control', 'Front\u009Bdesk'],
];
const INVISIBLE: Array<[string, string]> = [
  ['zero-width space', '\u200B'],
  ['zero-width joiners', '\u200D\u200C'],
  ['Hangul filler', '\u3164'],
  ['blank braille pattern', '\u2800'],
  ['no-break spaces', '\u00A0\u2007'],
  ['a combining mark alone', '\u0301'],
  ['word joiner and soft hyphen', '\u2060\u00AD'],
];

describe('names a person reads', () => {
  it('refuse bidi controls, C1 controls, line and paragraph separators, and names with no visible character', async () => {
    const g = await t.gateway();
    const { deviceId } = await pairCredentials(g, 'Front desk');
    for (const [what, name] of [...SPOOFING, ...INVISIBLE]) {
      const requests: Array<[string, string, unknown, string]> = [
        ['PATCH', `/v1/devices/${deviceId}`, { name }, 'body.name'],
        ['POST', '/v1/api-keys', { name }, 'body.name'],
        ['PUT', '/v1/agent', { ownerName: name }, 'body.ownerName'],
        ['POST', '/v1/phone/pair', { code: await pairingCode(g), name }, 'body.name'],
      ];
      for (const [method, path, body, where] of requests) {
        const res = await g.api(method, path, body, path === '/v1/phone/pair' ? { key: null } : {});
        expect(res.status, `${what} in ${method} ${path}: ${show(res)}`).toBe(400);
        expect(res.body.error.issues.map((i: { path: string }) => i.path), what).toEqual([where]);
      }
    }
    // Nothing changed, nothing was made.
    expect((await g.api('GET', `/v1/devices/${deviceId}`)).body.device.name).toBe('Front desk');
    expect((await g.api('GET', '/v1/devices')).body.devices).toHaveLength(1);
    expect((await g.api('GET', '/v1/api-keys')).body.apiKeys).toEqual([]);
    expect((await g.api('GET', '/v1/agent')).body.settings.ownerName).toBe('');
  });

  it('keep every script, emoji sequences and inner spaces; the assistant\'s owner may still be left empty', async () => {
    const g = await t.gateway();
    const { deviceId } = await pairCredentials(g);
    for (const name of ['Empfang Süd', 'مكتب الاستقبال', 'קבלה', '前台 📞', 'Família 👩‍👩‍👧', 'Dana Weber', 'Zoë']) {
      const res = await g.api('PATCH', `/v1/devices/${deviceId}`, { name });
      expect(res.status, `${name}: ${show(res)}`).toBe(200);
      expect(res.body.device.name).toBe(name);
    }
    expect((await g.api('POST', '/v1/api-keys', { name: 'مفتاح CRM' })).status).toBe(201);
    expect((await g.api('PUT', '/v1/agent', { ownerName: 'דנה' })).status).toBe(200);
    expect((await g.api('PUT', '/v1/agent', { ownerName: '' })).status).toBe(200);
  });
});
