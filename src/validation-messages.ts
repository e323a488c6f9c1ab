import { z } from 'zod';

/**
 * Every validation issue in plain words, in one place. zod's own texts ("Too small: expected string
 * to have >=1 characters") are written for programmers; these are read by people too: the console
 * shows an issue's message under the field it belongs to, and the API puts it after the field's path
 * (`body.to: must be at most 64 characters`). So each message is a short predicate that reads well
 * after a field's name. A schema's own message (`.regex(re, '…')`, `{ error: '…' }`) still wins.
 */

type RawIssue = z.core.$ZodRawIssue;

const FORMATS: Record<string, string> = {
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID (such as 123e4567-e89b-12d3-a456-426614174000)',
  guid: 'a UUID (such as 123e4567-e89b-12d3-a456-426614174000)',
  datetime: 'a date and time such as 2026-11-20T12:00:00Z',
  date: 'a date such as 2026-11-20',
  time: 'a time such as 12:00:00',
  duration: 'a duration such as PT5M',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  base64: 'base64 text',
  base64url: 'base64url text',
};

const TYPES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
  date: 'a date',
};

const UNITS: Record<string, [one: string, many: string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  map: ['entry', 'entries'],
  file: ['byte', 'bytes'],
};

const listed = (values: readonly unknown[]): string => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

function sized(origin: string | undefined, bound: number | bigint, comparison: 'at least' | 'at most' | 'more than' | 'less than' | 'exactly'): string {
  const unit = origin ? UNITS[origin] : undefined;
  if (!unit) return `must be ${comparison} ${bound.toString()}`;
  const verb = origin === 'string' ? 'be' : 'have';
  return `must ${verb} ${comparison} ${bound.toString()} ${Number(bound) === 1 ? unit[0] : unit[1]}`;
}

/** The plain message of one issue; `undefined` leaves it to zod (never reached for the codes zod has). */
export function plainMessage(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      if (issue.expected === 'number' && typeof issue.input === 'number') return 'must be a number';
      return `must be ${TYPES[issue.expected] ?? issue.expected}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      if ((issue.origin === 'array' || issue.origin === 'set') && Number(issue.minimum) === 1) return 'must not be empty';
      return sized(issue.origin, issue.minimum, issue.exact ? 'exactly' : issue.inclusive === false ? 'more than' : 'at least');
    case 'too_big':
      return sized(issue.origin, issue.maximum, issue.exact ? 'exactly' : issue.inclusive === false ? 'less than' : 'at most');
    case 'invalid_format': {
      if (issue.format === 'starts_with') return `must start with "${(issue as { prefix?: string }).prefix ?? ''}"`;
      if (issue.format === 'ends_with') return `must end with "${(issue as { suffix?: string }).suffix ?? ''}"`;
      if (issue.format === 'includes') return `must contain "${(issue as { includes?: string }).includes ?? ''}"`;
      const format = FORMATS[issue.format];
      return format ? `must be ${format}` : 'is not in the expected form';
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor.toString()}`;
    case 'unrecognized_keys':
      return issue.keys.length === 1 ? `has a field this request does not take: ${issue.keys[0]}` : `has fields this request does not take: ${listed(issue.keys)}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${listed(issue.values)}` : `must be one of: ${listed(issue.values)}`;
    case 'invalid_union':
      return 'is not one of the accepted forms';
    case 'invalid_key':
      return 'has a key that is not allowed';
    case 'invalid_element':
      return 'has an entry that is not allowed';
    case 'custom':
      return 'is not valid';
    default:
      return 'is not valid';
  }
}

let installed = false;

/** Makes plainMessage zod's message for every issue whose schema names none. Idempotent. */
export function installPlainMessages(): void {
  if (installed) return;
  installed = true;
  z.config({ customError: plainMessage });
}
