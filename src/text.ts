/* eslint-disable no-control-regex -- control characters are what this module is about */
import { z } from 'zod';

/**
 * Control characters (C0 and DEL): no name, id, URL or one-line text of a person needs them,
 * PostgreSQL refuses NUL in text (a 500 where the input had passed), SQLite cuts a text at it, and
 * a line break in a name forges log lines and headers.
 */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
export const NO_CONTROLS = /^[^\u0000-\u001f\u007f]*$/;
/** Text written over several lines keeps tab, line feed and carriage return. */
const NO_CONTROLS_BUT_LINES = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;
export const NO_CONTROLS_MESSAGE = 'must not contain control characters (such as a line break or NUL)';

/**
 * Half of a UTF-16 surrogate pair on its own (as from an emoji cut in two): not well-formed Unicode.
 * JSON lets any client send one (`"\\ud800"`); UTF-8 cannot carry it, so PostgreSQL stores U+FFFD
 * in its place, SQLite stores bytes no UTF-8 reader takes, and `encodeURIComponent` throws on it.
 * With the `u` flag a whole pair is one code point, so only a lone half matches.
 */
const LONE_SURROGATE = /\p{Surrogate}/u;
export const WELL_FORMED_MESSAGE = 'must be well-formed Unicode (it holds half of a surrogate pair, as from an emoji cut in two)';
export const isWellFormed = (s: string): boolean => !LONE_SURROGATE.test(s);

/**
 * The path (`a.b.0`, keys included) of the first text in a JSON value that is not well-formed, or
 * null when all of it is: for the JSON objects clients send (call metadata, phone event payloads, socket
 * messages), whose keys and values are all stored or passed on.
 */
export function illFormedPath(value: unknown): (string | number)[] | null {
  // Iterative, each node linked to its parent: a value nested 100,000 deep (which a 1 MiB body can
  // be) must be refused by the size check, not overflow the stack here.
  interface Node {
    value: unknown;
    key: string | number | undefined;
    parent: Node | undefined;
  }
  const pathOf = (node: Node | undefined, last?: string): (string | number)[] => {
    const path: (string | number)[] = last === undefined ? [] : [last];
    for (let n = node; n && n.key !== undefined; n = n.parent) path.push(n.key);
    return path.reverse();
  };
  const stack: Node[] = [{ value, key: undefined, parent: undefined }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const v = node.value;
    if (typeof v === 'string') {
      if (!isWellFormed(v)) return pathOf(node);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: node });
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (const [key] of entries) if (!isWellFormed(key)) return pathOf(node, key);
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], key: entries[i]![0], parent: node });
    }
  }
  return null;
}

/** Refuses a string that is not well-formed, and stops the checks after it (a refinement that URL-encodes would throw). */
export const wellFormed = () => z.refine<string>(isWellFormed, { message: WELL_FORMED_MESSAGE, abort: true });

/** Refuses a JSON value holding text that is not well-formed anywhere, naming where. */
export const wellFormedJson = <T>() =>
  z.superRefine<T>((value, ctx) => {
    const bad = illFormedPath(value);
    if (bad) ctx.addIssue({ code: 'custom', message: WELL_FORMED_MESSAGE, path: bad, input: value, abort: true });
  });

/**
 * Characters a name a person reads must not hold: bidi controls (U+061C, U+200E, U+200F,
 * U+202A-U+202E, U+2066-U+2069: "Front desk" shown backwards, or a name that reorders what follows
 * it), C1 controls (U+0080-U+009F, NEL among them) and the line and paragraph separators.
 */
const SPOOFING = /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
export const SPOOFING_MESSAGE = 'must not contain bidi controls (such as U+202E), C1 controls or line and paragraph separators';
/**
 * A character that shows: not white space, not a default-ignorable one (zero-width space and
 * joiners, the Hangul fillers, variation selectors), not another format or control character, not a
 * combining mark on its own, not the blank braille pattern.
 */
const VISIBLE = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Mn}\p{Me}\p{Surrogate}\u2800]/u;
export const INVISIBLE_MESSAGE = 'must contain a visible character';

/**
 * The one string schema for input from outside (every body field, path and query parameter, the
 * phone's messages): well-formed Unicode without control characters, `trim`med first when asked.
 * With `name`, it is a name a person reads (a phone's, an API key's, the assistant's owner): no
 * spoofing characters (SPOOFING) and, when not empty, a visible character. Passwords keep every
 * control character (refusing one could lock an account out), but must be well-formed too: they are
 * hashed as UTF-8, where every lone half reads as U+FFFD.
 */
export const text = (o: { trim?: boolean; name?: boolean } = {}) => {
  const base = (o.trim ? z.string().trim() : z.string()).check(wellFormed()).regex(NO_CONTROLS, NO_CONTROLS_MESSAGE);
  if (!o.name) return base;
  return base.refine((s) => !SPOOFING.test(s), SPOOFING_MESSAGE).refine((s) => s === '' || VISIBLE.test(s), INVISIBLE_MESSAGE);
};

/** Like text(), for what a person writes over several lines. */
export const textWithLines = () =>
  z.string().check(wellFormed()).regex(NO_CONTROLS_BUT_LINES, 'must not contain control characters other than tabs and line breaks');
