/**
 * URLs with `user:password@` are refused where they are configured: the gateway shows configured URLs
 * back (the call, the settings, the delivery log, webhook bodies), so nothing in a URL is a secret.
 * A receiver checks the webhook signature, an agent the signature of the upgrade (docs/api.md says
 * what is shown where).
 */
export const CREDENTIALS_REFUSED = 'must not contain a user name or password (user:password@): the gateway shows URLs back, so a URL holds no secret';

/** False for a URL with a user name or password; true for any other text (its own check refuses it). */
export function withoutCredentials(url: string): boolean {
  if (!URL.canParse(url)) return true;
  const { username, password } = new URL(url);
  return username === '' && password === '';
}

/** A WebSocket URL has no fragment (RFC 6455); `ws` refuses one when it dials, so it is refused where it is configured. */
export const FRAGMENT_REFUSED = 'must not contain a #fragment (a WebSocket URL has none)';

export const withoutFragment = (url: string): boolean => !url.includes('#');
