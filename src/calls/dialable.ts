/**
 * What a phone can dial (pure; shared by the API's schema and the console's dialer). People type
 * numbers with separators ("+49 (151) 234-56.78"); the phone needs the digits. Pauses stay: Android's
 * `tel:` URI dials `,` as a two-second pause and `;` as a wait, which reach extensions and voice
 * menus. `*` and `#` are keypad tones after a pause only: before it they make a service code
 * (`**21*<number>#` turns on call forwarding on the SIM, `*#06#` shows the IMEI), which an API key
 * must not be able to send to the phone's network.
 */

/** Typed between digits and removed before dialing: whitespace, dashes (also typographic ones), dots, slashes, parentheses. */
const SEPARATORS = /[\s\-\u2010-\u2015\u2212./()]/g;
const DIALABLE = /^[0-9*#+,;]*$/;
const NUMBER = /^\+?[0-9]+([,;][0-9*#,;]*)?$/;

export const DIALABLE_DESCRIPTION =
  'Digits with `+` at the start, then optionally the pauses `,` (two seconds) and `;` (wait) followed by digits, `*` and `#` (tones for a ' +
  'voice menu). Service codes (`*#06#`, `**21*…#`) are refused. Spaces, dashes, dots, slashes and parentheses may separate the characters ' +
  'and are removed: `+49 (151) 234-5678` is dialled, stored and shown as `+491512345678`.';

export type Dialable = { ok: true; number: string } | { ok: false; problem: string };

/** The number to dial, without separators, or what is wrong with the text (a plain sentence's predicate). */
export function normalizeDialable(text: string): Dialable {
  const number = text.trim().replace(SEPARATORS, '');
  if (!DIALABLE.test(number)) {
    const bad = [...new Set([...number].filter((ch) => !/[0-9*#+,;]/.test(ch)))];
    const shown = bad.slice(0, 8).map((ch) => `"${ch}"`).join(', ');
    return { ok: false, problem: `can hold only digits, +, *, # and the pauses , and ; (not ${shown})` };
  }
  if (number.lastIndexOf('+') > 0) return { ok: false, problem: 'may have + only at the start' };
  if (/^\+?[*#]/.test(number) || /^\+?[0-9]*[*#]/.test(number.split(/[,;]/)[0] ?? '')) {
    return { ok: false, problem: 'may have * and # only after a pause (, or ;): service codes such as *#06# are not dialled' };
  }
  if (!NUMBER.test(number)) return { ok: false, problem: 'must contain a number to dial, beginning with a digit' };
  return { ok: true, number };
}

/**
 * A search for a number: the dialable characters the text contains once separators are removed,
 * or null when it holds something else. "151 234" finds "+491512345678".
 */
export function dialableSearch(text: string): string | null {
  const digits = text.trim().replace(SEPARATORS, '');
  return digits !== '' && DIALABLE.test(digits) ? digits : null;
}

