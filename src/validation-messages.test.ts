import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installPlainMessages } from './validation-messages.js';

installPlainMessages();

/** zod's own wording, which must never reach a person. */
const ZOD_WORDING = /Too (small|big)|Invalid (input|option|string|number|key|value|discriminator)|expected .* (to have|to be|received)|Unrecognized key|[<>]=?\d/;

const cases: Array<[string, z.ZodType, unknown, string]> = [
  ['a missing field', z.object({ name: z.string() }), {}, 'is required'],
  ['a number for text', z.string(), 5, 'must be text'],
  ['text for a number', z.coerce.number(), 'abc', 'must be a number'],
  ['a fraction for a whole number', z.number().int(), 1.5, 'must be a whole number'],
  ['true or false', z.boolean(), 'yes', 'must be true or false'],
  ['an empty string', z.string().min(1), '', 'must not be empty'],
  ['a short string', z.string().min(8), 'abc', 'must be at least 8 characters'],
  ['a long string', z.string().max(64), 'x'.repeat(65), 'must be at most 64 characters'],
  ['a small number', z.number().min(1), 0, 'must be at least 1'],
  ['a big number', z.number().max(200), 201, 'must be at most 200'],
  ['a strict bound', z.number().gt(0), 0, 'must be more than 0'],
  ['a long list', z.array(z.string()).max(2), ['a', 'b', 'c'], 'must have at most 2 items'],
  ['an email', z.email(), 'nobody', 'must be an email address'],
  ['a URL', z.url(), 'not a url', 'must be a URL'],
  ['a date-time', z.iso.datetime(), 'yesterday', 'must be a date and time such as 2026-11-20T12:00:00Z'],
  ['a UUID', z.uuid(), 'x', 'must be a UUID (such as 123e4567-e89b-12d3-a456-426614174000)'],
  ['a pattern', z.string().regex(/^a+$/), 'b', 'is not in the expected form'],
  ['a prefix', z.string().startsWith('gw_'), 'x', 'must start with "gw_"'],
  ['a multiple', z.number().multipleOf(5), 7, 'must be a multiple of 5'],
  ['an unknown field', z.strictObject({ a: z.string() }), { a: 'x', surprise: 1 }, 'has a field this request does not take: surprise'],
  ['an enum', z.enum(['raw', 'vendor']), 'mp3', 'must be one of: raw, vendor'],
  ['a literal', z.literal('command'), 'x', 'must be command'],
  ['a union', z.union([z.string(), z.number()]), true, 'is not one of the accepted forms'],
  ['a record key', z.record(z.string().max(1), z.string()), { bb: 'x' }, 'has a key that is not allowed'],
  ['a refinement', z.string().refine((v) => v === 'ok'), 'no', 'is not valid'],
];

describe('plain validation messages', () => {
  it.each(cases)('says %s in plain words', (_what, schema, input, expected) => {
    const result = schema.safeParse(input);
    expect(result.success).toBe(false);
    const message = result.error!.issues[0]!.message;
    expect(message).toBe(expected);
    expect(message).not.toMatch(ZOD_WORDING);
  });

  it('keeps a schema\'s own message', () => {
    const result = z.string().regex(/^\d+$/, 'must contain only digits').safeParse('x');
    expect(result.error?.issues[0]?.message).toBe('must contain only digits');
  });
});
