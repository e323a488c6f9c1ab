import { describe, expect, it } from 'vitest';
import { normalizeDialable } from '../../src/calls/dialable.js';
import { show, testScope, type Call, type Command, type ErrorBody } from '../helpers/phones.js';

const t = testScope();

describe('POST /v1/calls: `to` must be dialable', () => {
  it('refuses text a phone cannot dial, saying which characters, and dials nothing', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const cases: Array<[string, RegExp]> = [
      ['call me maybe', /^can hold only digits, \+, \*, # and the pauses , and ; \(not "c", "a", "l", "m", "e", "y", "b"\)$/],
      ['+49 151 2345678 ext. 12', /\(not "e", "x", "t"\)/],
      ['0151+2345678', /^may have \+ only at the start$/],
      ['(-) . -', /^must contain a number to dial/],
      [',,,', /^must contain a number to dial/],
      ['   ', /^must not be empty$/],
    ];
    for (const [to, problem] of cases) {
      const res = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: sim.deviceId, to });
      expect(res.status, `${to}: ${show(res)}`).toBe(400);
      expect(res.body.error.issues, to).toEqual([expect.objectContaining({ path: 'body.to', message: expect.stringMatching(problem) })]);
    }
    expect(sim.commands).toEqual([]);
  });

  it('removes the separators people type, keeps pauses, and dials, stores and shows the digits', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g, { dial: { outcome: 'manual' } });
    const res = await g.api<{ call: Call; command: Command }>('POST', '/v1/calls', { deviceId: sim.deviceId, to: ' +49 (30) 1234–56.78 / 9,,42# ' });
    expect(res.status, show(res)).toBe(202);
    expect(res.body.call.remoteNumber).toBe('+4930123456789,,42#');
    expect(res.body.command.payload).toEqual({ to: '+4930123456789,,42#' });
    expect(sim.commands.map((c) => c.payload)).toEqual([{ to: '+4930123456789,,42#' }]);
    const listed = await g.api<{ calls: Call[] }>('GET', '/v1/calls');
    expect(listed.body.calls.map((c) => c.remoteNumber)).toEqual(['+4930123456789,,42#']);
  });

  it('keeps the spec\'s bound of 64 characters on what was sent, separators included', async () => {
    const g = await t.gateway();
    const sim = await t.phone(g);
    const spaced = '1 '.repeat(32).trim() + '2';
    expect(spaced).toHaveLength(64);
    const ok = await g.api<{ call: Call }>('POST', '/v1/calls', { deviceId: sim.deviceId, to: spaced });
    expect(ok.status, show(ok)).toBe(202);
    expect(ok.body.call.remoteNumber).toBe('1'.repeat(32) + '2');

    const long = await g.api<ErrorBody>('POST', '/v1/calls', { deviceId: sim.deviceId, to: `${spaced} 3` });
    expect(long.status, show(long)).toBe(400);
    expect(long.body.error.issues).toEqual([expect.objectContaining({ path: 'body.to', message: 'must be at most 64 characters' })]);
  });

  it('says so in the OpenAPI document', async () => {
    const g = await t.gateway();
    const doc = await g.api<{ components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } }>('GET', '/openapi.json', undefined, { key: null });
    const to = doc.body.components.schemas.PlaceCall!.properties.to!;
    expect(to).toMatchObject({ type: 'string', maxLength: 64, pattern: expect.any(String) });
    expect(to.description).toMatch(/separat.*removed/);
    const pattern = new RegExp(to.pattern as string);
    expect(pattern.test('+49 (151) 234-56.78,,1#')).toBe(true);
    expect(pattern.test('call me maybe')).toBe(false);
  });
});

describe('normalizeDialable (the dialer checks the same rule before sending)', () => {
  it.each([
    ['+1 (415) 555-0100', '+14155550100'],
    ['030/123 456;7', '030123456;7'],
    ['+44\u00a020\u00a07946\u00a00958', '+442079460958'],
  ])('%s -> %s', (text, number) => {
    expect(normalizeDialable(text)).toEqual({ ok: true, number });
  });

  it.each(['abc', '1+2', '+', ';1', '', '*#06#', '**21*0015551234567#', '##002#', '#31#0151', '0151#', '+*1'])('refuses %j', (text) => {
    expect(normalizeDialable(text).ok).toBe(false);
  });
});
