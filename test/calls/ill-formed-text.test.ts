import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RawCodec, TwilioCodec } from '../../src/codecs/index.js';
import { TEST_API_KEY, type TestGateway } from '../helpers/gateway.js';
import { callInState, pairCredentials, phoneEvent, show, storedContaining, testScope } from '../helpers/phones.js';
import { openMedia, placeCall } from '../streams/helpers.js';

const t = testScope();

/** Marks every text sent, so that a search of the store finds any of it, whatever became of the half pair. */
const MARK = 'zqsurrogate';
/** Half of a surrogate pair, as JSON carries it from an emoji cut in two. */
const LONE = '\ud800';
/** The UTF-8 bytes such a half would have, %-escaped: the nearest a path or query can come to one. */
const LONE_ESCAPED = '%ED%A0%80';

type Schema = { $ref?: string; type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; additionalProperties?: boolean | Schema; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; format?: string; example?: unknown; enum?: unknown[] };
type Operation = { parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>; requestBody?: { content?: Record<string, { schema?: Schema }> } };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/** A request that puts a lone surrogate in one text field of the OpenAPI document. */
interface Case {
  method: string;
  path: string;
  query: string;
  body: unknown;
  /** Where the refusal must point (`body.stream.parameters`, `query.url`). */
  where: string;
}

const resolve = (doc: Doc, s: Schema | undefined): Schema => {
  let schema = s ?? {};
  while (schema.$ref) schema = doc.components.schemas[schema.$ref.split('/').pop()!] ?? {};
  return schema;
};
const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** A valid-looking text for a string schema, with the lone half and the mark inside it. */
function illFormedFor(s: Schema): string {
  const base = typeof s.example === 'string' ? s.example : s.format === 'email' ? 'a@example.com' : s.format === 'uri' ? 'http://example.com/a' : 'abc';
  return s.format === 'email' ? `${MARK}${LONE}${base}` : `${base}${MARK}${LONE}`;
}

/** Every place in a body schema that takes text: string fields, record keys and values, array items; each as the body that fills it. */
function bodyCases(doc: Doc, schema: Schema | undefined, path: string[], wrap: (v: unknown) => unknown, seen: Set<Schema>): Array<{ where: string[]; body: unknown }> {
  const s = resolve(doc, schema);
  if (seen.has(s)) return [];
  const inner = new Set(seen).add(s);
  const out: Array<{ where: string[]; body: unknown }> = [];
  for (const option of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) out.push(...bodyCases(doc, option, path, wrap, inner));
  const types = typesOf(s);
  if (types.includes('string')) out.push({ where: path, body: wrap(illFormedFor(s)) });
  if (types.includes('object') || s.properties) {
    for (const [name, prop] of Object.entries(s.properties ?? {})) out.push(...bodyCases(doc, prop, [...path, name], (v) => wrap({ [name]: v }), inner));
    if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
      const values = s.additionalProperties === true ? {} : s.additionalProperties;
      out.push({ where: path, body: wrap({ [`key${MARK}${LONE}`]: 'value' }) });
      out.push({ where: path, body: wrap({ key: `value${MARK}${LONE}` }) });
      out.push({ where: path, body: wrap({ key: { nested: [`value${MARK}${LONE}`] } }) });
      out.push(...bodyCases(doc, values, [...path, 'key'], (v) => wrap({ key: v }), inner).filter((c) => c.where.length > path.length + 1 || typesOf(resolve(doc, values)).length > 0));
    }
  }
  if (types.includes('array') && s.items) out.push(...bodyCases(doc, s.items, [...path, '0'], (v) => wrap([v]), inner));
  return out;
}

function casesOf(doc: Doc): Case[] {
  const cases: Case[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const pathWith = (target?: string) =>
        template.replace(/\{(\w+)\}/g, (_, name: string) => (name === target ? `x${MARK}${LONE_ESCAPED}` : resolve(doc, params.find((p) => p.name === name)?.schema).type === 'integer' ? '1' : 'x'));
      const requiredQuery = params
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => `${p.name}=${encodeURIComponent(typeof resolve(doc, p.schema).example === 'string' ? (resolve(doc, p.schema).example as string) : 'x')}`);
      for (const p of params) {
        if (!typesOf(resolve(doc, p.schema)).includes('string')) continue;
        if (p.in === 'path') cases.push({ method, path: pathWith(p.name), query: requiredQuery.join('&'), body: undefined, where: 'path' });
        if (p.in === 'query') {
          const query = [...requiredQuery.filter((q) => !q.startsWith(`${p.name}=`)), `${p.name}=x${MARK}${LONE_ESCAPED}`].join('&');
          cases.push({ method, path: pathWith(), query, body: undefined, where: `query.${p.name}` });
        }
      }
      const json = op.requestBody?.content?.['application/json']?.schema;
      if (json) {
        for (const c of bodyCases(doc, json, ['body'], (v) => v, new Set())) {
          cases.push({ method, path: pathWith(), query: requiredQuery.join('&'), body: c.body, where: c.where.join('.') });
        }
      }
    }
  }
  return cases;
}

async function everyTextField(g: TestGateway): Promise<number> {
  const doc = (await g.api<Doc>('GET', '/openapi.json', undefined, { key: null })).body;
  const cases = casesOf(doc);
  for (const c of cases) {
    const target = `${c.path}${c.query ? `?${c.query}` : ''}`;
    const res = await g.api(c.method.toUpperCase(), target, c.body);
    const what = `${c.method.toUpperCase()} ${target} ${JSON.stringify(c.body)}`;
    expect(res.status, `${what}: ${show(res)}`).toBe(400);
    expect(res.body.error.code, what).toBe('VALIDATION_ERROR');
    const paths = (res.body.error.issues as Array<{ path: string }>).map((i) => i.path);
    expect(paths.some((p) => p === c.where || p.startsWith(`${c.where}.`)), `${what}: ${JSON.stringify(paths)} should name ${c.where}`).toBe(true);
  }
  return cases.length;
}

describe('text that is not well-formed Unicode (a lone surrogate)', () => {
  it('is refused with 400 at its field in every text field of the OpenAPI document, and nothing of it is stored', async () => {
    const g = await t.gateway();
    await pairCredentials(g);
    const count = await everyTextField(g);
    // The walk found the fields: bodies, records' keys and values, paths, queries.
    expect(count).toBeGreaterThan(60);
    expect(await storedContaining(g.dataDir, MARK)).toEqual([]);
  });

  it('is refused on the phone socket with BAD_MESSAGE, naming where, and the socket is kept; nothing is stored', async () => {
    const g = await t.gateway();
    const { deviceToken } = await pairCredentials(g);
    let phone = await t.raw(g, deviceToken);
    const native = `native-${randomUUID()}`;
    const samples: Array<Record<string, unknown>> = [
      { type: 'hello', appVersion: '1.0', call: { nativeCallId: native, callId: 'call_x', state: 'active' } },
      { type: 'health', health: { carrier: 'Telekom', model: 'Pixel', android: '14', appVersion: '1.0', network: 'wifi' } },
      { type: 'ack', commandId: randomUUID(), ok: false, error: { code: 'DEVICE_BUSY', message: 'busy' } },
      { ...phoneEvent('call.ringing', native, { direction: 'incoming', remoteNumber: '+4930100', payload: { note: 'n', list: ['a'] } }) },
      { type: 'dtmf', nativeCallId: native, digits: '12' },
      { type: 'surprise', note: 'new message types too' },
    ];
    /** Each sample with one of its texts (a value or a key, at any depth) made ill-formed. */
    const variants = (value: unknown): unknown[] => {
      if (typeof value === 'string') return [`${value}${MARK}${LONE}`];
      if (Array.isArray(value)) return value.flatMap((item, i) => variants(item).map((v) => value.map((x, j) => (j === i ? v : x))));
      if (typeof value !== 'object' || value === null) return [];
      const entries = Object.entries(value);
      return [
        ...entries.map(([key]) => Object.fromEntries(entries.map(([k, x]) => [k === key ? `${k}${MARK}${LONE}` : k, x]))),
        ...entries.flatMap(([key, inner]) => variants(inner).map((v) => ({ ...value, [key]: v }))),
      ];
    };
    let sent = 0;
    for (const sample of samples) {
      for (const variant of variants(sample)) {
        const refusal = phone.nextNew((m) => m.type === 'error');
        phone.sendText(JSON.stringify(variant));
        sent += 1;
        const error = await refusal;
        expect(error, JSON.stringify(variant)).toMatchObject({ code: 'BAD_MESSAGE' });
        if ((error.message as string).startsWith('Invalid message')) expect(error.message).toContain('well-formed Unicode');
        expect(phone.open).toBe(true);
        // The gateway answers only the first ten refusals of a socket: a fresh one for the next batch.
        if (sent % 10 === 0) {
          await phone.close();
          phone = await t.raw(g, deviceToken);
        }
      }
    }
    expect(sent).toBeGreaterThan(30);
    expect(await storedContaining(g.dataDir, MARK)).toEqual([]);
  });

  it('is refused on the media socket with BAD_MESSAGE, which stays open, and skipped by both agent formats', async () => {
    const g = await t.gateway();
    const phone = await t.phone(g, { dial: { outcome: 'answer', ringMs: 20 } });
    const { call } = await placeCall(g, phone);
    await callInState(g, call.id, 'active');
    const media = await openMedia(g, call.id, { 'x-api-key': TEST_API_KEY });
    if (!media.ok) throw new Error(`media socket refused: ${media.status}`);
    t.defer(() => media.peer.close());
    await media.peer.message((m) => m.type === 'start');
    for (const message of [{ type: `clear${LONE}` }, { type: 'clear', note: LONE }, { type: 'clear', [LONE]: 1 }]) {
      media.peer.ws.send(JSON.stringify(message));
      const error = await media.peer.message((m) => m.type === 'error' && String(m.message).includes('well-formed'));
      expect(error.code).toBe('BAD_MESSAGE');
      media.peer.json.items.splice(0);
    }
    expect(media.peer.open).toBe(true);

    // Agents' messages are skipped and logged (docs/api.md): a mark named with half a pair is never told back.
    const bytes = (m: unknown) => Buffer.from(JSON.stringify(m), 'utf8');
    expect(new TwilioCodec().decode(bytes({ event: 'mark', mark: { name: `m${LONE}` } }), false)).toMatchObject({ kind: 'ignored', why: expect.stringContaining('well-formed') });
    expect(new RawCodec().decode(bytes({ type: 'clear', x: [LONE] }), false)).toMatchObject({ kind: 'ignored', why: expect.stringContaining('x.0') });
  });
});
