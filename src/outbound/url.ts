/**
 * URLs with `user:password@` are refused where they are configured: the gateway shows configured URLs
 * back (the call, the settings, the delivery log) and would have to keep the password out of all of
 * them. A receiver or an agent that needs a credential takes it in the path or the query, or checks
 * the webhook signature.
 */
export const CREDENTIALS_REFUSED = 'must not contain a user name or password (user:password@); put a token in the path or query instead';

/** False for a URL with a user name or password; true for any other text (its own check refuses it). */
export function withoutCredentials(url: string): boolean {
  if (!URL.canParse(url)) return true;
  const { username, password } = new URL(url);
  return username === '' && password === '';
}

/** A WebSocket URL has no fragment (RFC 6455); `ws` refuses one when it dials, so it is refused where it is configured. */
export const FRAGMENT_REFUSED = 'must not contain a #fragment (a WebSocket URL has none)';

export const withoutFragment = (url: string): boolean => !url.includes('#');
