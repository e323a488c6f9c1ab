import type { MiddlewareHandler } from 'hono';
import { invalidInput } from '../errors.js';

const ESCAPE_MESSAGE = 'holds a %-escape that is not UTF-8 (such as half of a surrogate pair, %ED%A0%80)';

function decodes(part: string): boolean {
  try {
    decodeURIComponent(part.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
}

/**
 * A path or query string whose %-escapes are not UTF-8 cannot be the text the client meant (the
 * router would pass the escapes on as they are, and a search would look for them): 400 at the path,
 * or at the query parameter it is in, like any other text that is not well-formed (src/text.ts).
 */
export const refuseUndecodableTarget: MiddlewareHandler = async (c, next) => {
  const url = new URL(c.req.url);
  if (!decodes(url.pathname)) throw invalidInput('path', ESCAPE_MESSAGE, 'invalid_format');
  for (const pair of url.search.slice(1).split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (decodes(pair)) continue;
    throw invalidInput(decodes(name) ? `query.${decodeURIComponent(name.replace(/\+/g, ' '))}` : 'query', ESCAPE_MESSAGE, 'invalid_format');
  }
  await next();
};
