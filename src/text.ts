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
 * The one string schema for input from outside (every body field, path and query parameter, the
 * phone's messages): a string without control characters, `trim`med first when asked. Passwords are
 * the exception: they are only hashed, never stored or shown, and refusing a character could lock
 * an account out.
 */
export const text = (o: { trim?: boolean } = {}) => (o.trim ? z.string().trim() : z.string()).regex(NO_CONTROLS, NO_CONTROLS_MESSAGE);

/** Like text(), for what a person writes over several lines. */
export const textWithLines = () => z.string().regex(NO_CONTROLS_BUT_LINES, 'must not contain control characters other than tabs and line breaks');
