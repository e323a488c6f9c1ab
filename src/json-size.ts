import { LIMITS } from './limits.js';

/**
 * Whether a value serialises to at most `max` bytes of JSON. Objects nested so deep that they
 * cannot be serialised at all count as too large.
 */
export function fitsJson(value: unknown, max: number = LIMITS.jsonObjectMaxBytes): boolean {
  try {
    return new TextEncoder().encode(JSON.stringify(value) ?? '').length <= max;
  } catch {
    return false;
  }
}

export const JSON_TOO_LARGE = `must be at most ${LIMITS.jsonObjectMaxBytes / 1024} KiB as JSON`;
